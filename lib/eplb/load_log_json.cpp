// Our load-log JSON: {"num_layers": L, "num_experts": E, "loads": [[...E...] x L]}, or
// "windows": [[[...E...] x L] x W] for several time windows; "num_groups" optional; other keys ignored.
#include <fmt/format.h>

#include "eplb/load_log_readers.hpp"
#include "io/input_error.hpp"

namespace moeplan::eplb::detail {

namespace {

std::int64_t positive_integer(const nlohmann::json& root, const char* key, const std::string& file) {
  if (!root.contains(key)) throw InputError(file, key, "a positive integer (the key is missing)");
  const auto& value = root.at(key);
  if (!value.is_number_integer() || value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > (1 << 20)) {
    throw InputError(file, key, fmt::format("a positive integer up to 2^20, got {}", value.dump()));
  }
  return value.get<std::int64_t>();
}

}  // namespace

LoadLog load_log_from_our_json(const nlohmann::json& root, const std::string& file) {
  LoadLog log;
  log.file = file;
  log.num_layers = positive_integer(root, "num_layers", file);
  log.num_experts = positive_integer(root, "num_experts", file);
  if (root.contains("num_groups")) {
    log.num_groups = positive_integer(root, "num_groups", file);
    if (log.num_experts % log.num_groups != 0) {
      throw InputError(file, "num_groups", fmt::format("a divisor of num_experts ({})", log.num_experts));
    }
  }
  if (root.contains("windows")) {
    const auto& windows = root.at("windows");
    if (!windows.is_array() || windows.empty()) throw InputError(file, "windows", "a non-empty list of [layers][experts] matrices");
    log.num_windows = static_cast<std::int64_t>(windows.size());
    for (std::size_t window = 0; window < windows.size(); ++window) {
      append_matrix(windows[window], 0, log, fmt::format("windows[{}]", window));
    }
    return log;
  }
  if (!root.contains("loads")) throw InputError(file, "loads", "a [num_layers][num_experts] list of counts (the key is missing)");
  append_matrix(root.at("loads"), 0, log, "loads");
  return log;
}

}  // namespace moeplan::eplb::detail
