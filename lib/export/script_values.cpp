#include "export/script_values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "io/input_error.hpp"
#include "io/utf8_text.hpp"

namespace moeplan::exporting {

namespace {

constexpr const char* kCommandLine = "command line";
constexpr std::size_t kLongestHost = 253;  // a DNS name's limit (RFC 1035, section 2.3.4)

bool has_control_byte(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char character) {
    const auto byte = static_cast<unsigned char>(character);
    return byte < 0x20 || byte == 0x7f;
  });
}

// A connector's class name: letters, digits, '.', '-' and '_', not starting with '-'.
bool valid_connector(std::string_view name) {
  if (name.empty() || name.size() > kLongestHost || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char character) {
    return std::isalnum(static_cast<unsigned char>(character)) ||
           std::string_view(".-_").find(character) != std::string_view::npos;
  });
}

// Text that reaches a script as a quoted token and deployment.json as a JSON string.
bool safe_text(const std::string& text) { return valid_utf8(text) && !has_control_byte(text); }

void check_text(const std::string& key, const std::string& text, const std::string& what) {
  if (!safe_text(text)) {
    throw InputError(kCommandLine, key,
                     fmt::format("{} in UTF-8 without control characters, got '{}'", what, printable(text)));
  }
}

// The engine's model argument: --model-path, else the plan's hf_id, else its model name; never one that
// reads as a flag.
void check_model_path(const ExportRequest& request, const PlanFile& plan) {
  const std::string expectation = "UTF-8 without control characters, not starting with '-'";
  if (!request.model_path.empty()) {
    if (!safe_text(request.model_path) || request.model_path.front() == '-') {
      throw InputError(
          kCommandLine, "--model-path",
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

}  // namespace

bool is_host_name(std::string_view host) {
  if (host.empty() || host.size() > kLongestHost || host.front() == '-') return false;
  return std::all_of(host.begin(), host.end(), [](char character) {
    return std::isalnum(static_cast<unsigned char>(character)) || character == '.' || character == '-' ||
           character == ':';
  });
}

void check_request_values(const ExportRequest& request, const PlanFile& plan) {
  for (const std::string& host : request.hosts) {
    if (!is_host_name(host)) {
      throw InputError(
          kCommandLine, "--hosts",
          fmt::format("host names or addresses (letters, digits, '.', '-', ':'), got '{}'", printable(host)));
    }
  }
  if (!request.kv_connector.empty() && !valid_connector(request.kv_connector)) {  // empty: the engine's default
    throw InputError(
        kCommandLine, "--kv-connector",
        fmt::format("a connector name (letters, digits, '.', '-', '_'), got '{}'", printable(request.kv_connector)));
  }
  check_text("--plan", plan.file, "a path");
  for (const PlacementChoice& placement : request.placements) check_text("--placement", placement.file, "a path");
  check_model_path(request, plan);
}

}  // namespace moeplan::exporting
