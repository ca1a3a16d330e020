#include "export/hosts.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace moeplan::exporting {

namespace {

constexpr std::size_t kLongestHost = 253;  // a DNS name's limit (RFC 1035, section 2.3.4)

// Four decimal numbers of 0 to 255 joined by dots, without leading zeros (which some readers take for octal).
bool valid_ipv4(std::string_view host) {
  std::size_t parts = 0;
  std::size_t start = 0;
  while (start <= host.size()) {
    const std::size_t end = std::min(host.find('.', start), host.size());
    const std::string_view part = host.substr(start, end - start);
    const bool digits = !part.empty() && part.size() <= 3 && std::all_of(part.begin(), part.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    if (!digits || (part.size() > 1 && part.front() == '0') || std::stoi(std::string(part)) > 255) return false;
    ++parts;
    start = end + 1;
  }
  return parts == 4;
}

// An IPv6 address as inet_pton reads it (no zone, no brackets).
bool valid_ipv6(std::string_view host) {
  in6_addr address{};
  return inet_pton(AF_INET6, std::string(host).c_str(), &address) == 1;
}

// RFC 1123 labels: letters, digits and '-', 1 to 63 each, neither starting nor ending with '-'; at least
// one letter somewhere, so a malformed address ("999.1.1.1") is not taken for a name.
bool valid_dns_name(std::string_view host) {
  if (std::none_of(host.begin(), host.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }))
    return false;
  std::size_t start = 0;
  while (start <= host.size()) {
    const std::size_t end = std::min(host.find('.', start), host.size());
    const std::string_view label = host.substr(start, end - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    if (!std::all_of(label.begin(), label.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-'; }))
      return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

HostKind host_kind(std::string_view host) {
  if (host.empty() || host.size() > kLongestHost) return HostKind::invalid;
  if (valid_ipv4(host)) return HostKind::ipv4;
  if (host.find(':') != std::string_view::npos) return valid_ipv6(host) ? HostKind::ipv6 : HostKind::invalid;
  return valid_dns_name(host) ? HostKind::name : HostKind::invalid;
}

bool is_host_name(std::string_view host) { return host_kind(host) != HostKind::invalid; }

std::string host_and_port(const std::string& host, std::int64_t port) {
  return host_kind(host) == HostKind::ipv6 ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
}

}  // namespace moeplan::exporting
