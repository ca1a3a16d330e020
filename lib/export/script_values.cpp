#include "export/script_values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "export/hosts.hpp"
#include "io/input_error.hpp"
#include "io/utf8_text.hpp"

namespace moeplan::exporting {

namespace {

constexpr const char* kValuesFromCommandLine = "command line";
constexpr std::size_t kLongestHostName = 253;  // a DNS name's limit (RFC 1035, section 2.3.4)

// A connector's class name: letters, digits, '.', '-' and '_', not starting with '-'.
bool valid_connector(std::string_view name) {
  if (name.empty() || name.size() > kLongestHostName || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char character) {
    return std::isalnum(static_cast<unsigned char>(character)) ||
           std::string_view(".-_").find(character) != std::string_view::npos;
  });
}

// Text that reaches a script as a quoted token, a YAML value and deployment.json as a JSON string: one
// line to every reader, YAML 1.1's NEL, U+2028 and U+2029 included.
bool safe_text(const std::string& text) { return single_line_text(text); }

void check_text(const std::string& key, const std::string& text, const std::string& what) {
  if (!safe_text(text)) {
    throw InputError(
        kValuesFromCommandLine, key,
        fmt::format("{} in UTF-8 without control characters or line breaks, got '{}'", what, printable(text)));
  }
}

// The engine's model argument: --model-path, else the plan's hf_id, else its model name; never one that
// reads as a flag.
void check_model_path(const ExportRequest& request, const PlanFile& plan) {
  const std::string expectation = "UTF-8 without control characters or line breaks, not starting with '-'";
  if (!request.model_path.empty()) {
    if (!safe_text(request.model_path) || request.model_path.front() == '-') {
      throw InputError(
          kValuesFromCommandLine, "--model-path",
          fmt::format("a model path or hub id in {}, got '{}'", expectation, printable(request.model_path)));
    }
    return;
  }
  if (!plan.model.hf_id.empty()) return;  // the model path is the hf_id, owner/name (plan_reader)
  if (!safe_text(plan.model.name) || plan.model.name.empty() || plan.model.name.front() == '-') {
    throw InputError(plan.file, "model.name",
                     fmt::format("a name usable as the engine's model path ({}), or --model-path; got '{}'",
                                 expectation, printable(plan.model.name)));
  }
}

// A container image reference ([registry[:port]/]path[:tag][@digest]): letters, digits and ". _ - / : @",
// starting with a letter or digit, at most 512 bytes; nothing a YAML or shell reader would read apart.
bool valid_image(std::string_view image) {
  if (image.empty() || image.size() > 512 || std::isalnum(static_cast<unsigned char>(image.front())) == 0) return false;
  return std::all_of(image.begin(), image.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("._-/:@").find(c) != std::string_view::npos;
  });
}

void check_hosts(const ExportRequest& request) {
  std::set<std::string> seen;
  for (const std::string& host : request.hosts) {
    const HostKind kind = host_kind(host);
    if (kind == HostKind::invalid) {
      throw InputError(kValuesFromCommandLine, "--hosts",
                       fmt::format("host names (RFC 1123), IPv4 or IPv6 addresses, got '{}'", printable(host)));
    }
    // [trtllm-llmapi-launch]: mpirun -H reads HOST:SLOTS, which an IPv6 address cannot be written in.
    if (kind == HostKind::ipv6 && request.engine == Engine::trtllm) {
      throw InputError(kValuesFromCommandLine, "--hosts",
                       fmt::format("host names or IPv4 addresses for TensorRT-LLM, whose mpirun -H list reads "
                                   "HOST:SLOTS; got the IPv6 address '{}'",
                                   host));
    }
    if (!seen.insert(host).second) {
      throw InputError(kValuesFromCommandLine, "--hosts",
                       fmt::format("each host once (one node each), got '{}' twice", host));
    }
  }
}

}  // namespace

void check_request_values(const ExportRequest& request, const PlanFile& plan) {
  check_hosts(request);
  if (!request.image.empty() && !valid_image(request.image)) {  // empty: default_image
    throw InputError(kValuesFromCommandLine, "--image",
                     fmt::format("a container image (letters, digits, '.', '_', '-', '/', ':', '@', starting with a "
                                 "letter or digit), got '{}'",
                                 printable(request.image)));
  }
  if (!request.kv_connector.empty() && !valid_connector(request.kv_connector)) {  // empty: the engine's default
    throw InputError(
        kValuesFromCommandLine, "--kv-connector",
        fmt::format("a connector name (letters, digits, '.', '-', '_'), got '{}'", printable(request.kv_connector)));
  }
  check_text("--plan", plan.file, "a path");
  for (const PlacementChoice& placement : request.placements) check_text("--placement", placement.file, "a path");
  check_model_path(request, plan);
}

}  // namespace moeplan::exporting
