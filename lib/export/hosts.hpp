#pragma once
// The nodes' addresses of an export (--hosts): what each is, and how it is written beside a port.
#include <cstdint>
#include <string>
#include <string_view>

namespace moeplan::exporting {

// What a --hosts entry is: a DNS name (RFC 1123 labels), an IPv4 address (dotted decimal) or an IPv6
// address (inet_pton's form, no zone); invalid for anything else, and past 253 bytes.
enum class HostKind { invalid, name, ipv4, ipv6 };
HostKind host_kind(std::string_view host);
bool is_host_name(std::string_view host);

// HOST:PORT as engines and URLs read it: an IPv6 address in brackets ("[fe80::1]:5000", RFC 3986's form,
// which SGLang's --dist-init-addr reads [sglang-dist-init-ipv6]), anything else bare.
std::string host_and_port(const std::string& host, std::int64_t port);

}  // namespace moeplan::exporting
