// Our load-log JSON: {"num_layers": L, "num_experts": E, "loads": [[...E...] x L]}, or
// "windows": [[[...E...] x L] x W] for several time windows; "num_groups" optional; other keys ignored.
#include <fmt/format.h>

#include "eplb/load_log_readers.hpp"
#include "io/input_error.hpp"

namespace moeplan::eplb::detail {

namespace {

std::int64_t positive_integer(const nlohmann::json& scalars, const char* key, const std::string& file) {
  if (!scalars.contains(key)) throw InputError(file, key, "a positive integer (the key is missing)");
  const auto& value = scalars.at(key);
  if (!value.is_number_integer() || value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > (1 << 20)) {
    throw InputError(file, key, fmt::format("a positive integer up to 2^20, got {}", echoed(value.dump())));
  }
  return value.get<std::int64_t>();
}

}  // namespace

LoadLog load_log_from_our_json(StreamedLoadJson document, const std::string& file) {
  LoadLog log;
  log.file = file;
  log.num_layers = positive_integer(document.scalars, "num_layers", file);
  log.num_experts = positive_integer(document.scalars, "num_experts", file);
  if (document.scalars.contains("num_groups")) {
    log.num_groups = positive_integer(document.scalars, "num_groups", file);
    if (log.num_experts % log.num_groups != 0) {
      throw InputError(file, "num_groups", fmt::format("a divisor of num_experts ({})", log.num_experts));
    }
  }
  CountList& windows = document.lists["windows"];
  if (windows.present && document.lists["loads"].present) {
    throw InputError(file, "windows", "either loads (one window) or windows, not both");
  }
  if (windows.present) {
    log.num_windows = windows.elements(0, 0);
    if (log.num_windows < 1) throw InputError(file, "windows", "a non-empty list of [layers][experts] matrices");
    for (std::int64_t window = 0; window < log.num_windows; ++window) {
      check_matrix(windows, 1, static_cast<std::size_t>(window), log.num_layers, log.num_experts, file,
                   fmt::format("windows[{}]", window));
    }
    log.counts = std::move(windows.leaves);
    return log;
  }
  CountList& loads = document.lists["loads"];
  if (!loads.present)
    throw InputError(file, "loads", "a [num_layers][num_experts] list of counts (the key is missing)");
  check_matrix(loads, 0, 0, log.num_layers, log.num_experts, file, "loads");
  log.counts = std::move(loads.leaves);
  return log;
}

}  // namespace moeplan::eplb::detail
