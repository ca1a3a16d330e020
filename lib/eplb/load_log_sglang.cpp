// SGLang's expert-distribution counts as JSON: {"logical_count": [layers][experts] or
// [windows][layers][experts]}, where the layer axis counts every model layer, dense ones included
// (engines.md §1.5), so the first `dense_layers` rows are dropped.
#include <fmt/format.h>

#include "eplb/load_log_readers.hpp"
#include "io/input_error.hpp"

namespace moeplan::eplb::detail {

namespace {

// The nesting depth of the first element: 2 for [layers][experts], 3 for [windows][layers][experts].
int array_depth(const nlohmann::json& value) {
  int depth = 0;
  for (const auto* cursor = &value; cursor->is_array() && !cursor->empty(); cursor = &(*cursor)[0]) ++depth;
  return depth;
}

// A dense layer routes no tokens to experts, so its row must be all zeros; otherwise dense_layers is wrong.
void check_dense_rows_empty(const nlohmann::json& matrix, std::int64_t dense_layers, const std::string& file,
                            const std::string& key) {
  for (std::int64_t layer = 0; layer < dense_layers; ++layer) {
    for (const auto& count : matrix[static_cast<std::size_t>(layer)]) {
      if (!count.is_number() || count.get<double>() != 0) {
        throw InputError(file, fmt::format("{}[{}]", key, layer),
                         fmt::format("zeros: layer {} is dense (the model has {} dense layers)", layer, dense_layers));
      }
    }
  }
}

}  // namespace

LoadLog load_log_from_sglang_json(const nlohmann::json& root, const std::string& file, const LoadReadOptions& options) {
  if (options.dense_layers < 0) {
    throw InputError(file, "logical_count", "the model's dense-layer count to pick the MoE layers (give --model or --dense-layers)");
  }
  const auto& counts = root.at("logical_count");
  const int depth = array_depth(counts);
  if (depth != 2 && depth != 3) throw InputError(file, "logical_count", "a [layers][experts] or [windows][layers][experts] array");
  const nlohmann::json windows = depth == 2 ? nlohmann::json::array({counts}) : counts;
  const auto model_rows = static_cast<std::int64_t>(windows[0].size());
  if (options.model_layers > 0 && model_rows != options.model_layers) {
    throw InputError(file, "logical_count", fmt::format("{} layer rows (every model layer), got {}", options.model_layers, model_rows));
  }
  if (model_rows <= options.dense_layers) {
    throw InputError(file, "logical_count", fmt::format("more than {} layer rows (the dense layers)", options.dense_layers));
  }
  LoadLog log;
  log.file = file;
  log.num_windows = static_cast<std::int64_t>(windows.size());
  log.num_layers = model_rows - options.dense_layers;
  log.num_experts = static_cast<std::int64_t>(windows[0][0].size());
  for (std::size_t window = 0; window < windows.size(); ++window) {
    const std::string key = depth == 2 ? "logical_count" : fmt::format("logical_count[{}]", window);
    if (!windows[window].is_array() || static_cast<std::int64_t>(windows[window].size()) != model_rows) {
      throw InputError(file, key, fmt::format("a list of {} layer rows", model_rows));
    }
    append_matrix(windows[window], options.dense_layers, log, key);
    check_dense_rows_empty(windows[window], options.dense_layers, file, key);
  }
  return log;
}

}  // namespace moeplan::eplb::detail
