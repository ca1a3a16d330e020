// SGLang's expert-distribution counts as JSON: {"logical_count": [layers][experts] or
// [windows][layers][experts]}, where the layer axis counts every model layer, dense ones included
// [sglang-expert-distribution], so the first `dense_layers` rows are dropped.
#include <fmt/format.h>

#include <algorithm>

#include "eplb/load_log_readers.hpp"
#include "io/input_error.hpp"

namespace moeplan::eplb::detail {

namespace {

// A dense layer routes no tokens to experts, so its row must be all zeros; otherwise dense_layers is wrong.
void check_dense_rows_empty(const LoadLog& dump, std::int64_t dense_layers, const std::string& key_of_window) {
  for (std::int64_t window = 0; window < dump.num_windows; ++window) {
    for (std::int64_t layer = 0; layer < dense_layers; ++layer) {
      const auto row = dump.row(window, layer);
      if (std::any_of(row.begin(), row.end(), [](TokenCount count) { return count != 0; })) {
        throw InputError(dump.file, fmt::format("{}[{}]", fmt::format(fmt::runtime(key_of_window), window), layer),
                         fmt::format("zeros: layer {} is dense (the model has {} dense layers)", layer, dense_layers));
      }
    }
  }
}

// Keeps the MoE rows of every window: [windows][model rows][experts] -> [windows][model rows - dense][experts].
void drop_dense_rows(LoadLog& dump, std::int64_t dense_layers) {
  const std::int64_t rows = dump.num_layers;
  const std::int64_t kept = rows - dense_layers;
  auto output = dump.counts.begin();
  for (std::int64_t window = 0; window < dump.num_windows; ++window) {
    const auto first = dump.counts.begin() + (window * rows + dense_layers) * dump.num_experts;
    output = std::copy(first, first + kept * dump.num_experts, output);
  }
  dump.counts.erase(output, dump.counts.end());
  dump.num_layers = kept;
}

}  // namespace

LoadLog load_log_from_sglang_json(StreamedLoadJson document, const std::string& file, const LoadReadOptions& options) {
  if (options.dense_layers < 0) {
    throw InputError(file, "logical_count",
                     "the model's dense-layer count to pick the MoE layers (give --model or --dense-layers)");
  }
  CountList& counts = document.lists["logical_count"];
  const int depth = counts.ragged ? 0 : counts.leaf_level;
  if (depth != 2 && depth != 3)
    throw InputError(file, "logical_count", "a [layers][experts] or [windows][layers][experts] array");
  const std::size_t row_level = depth == 2 ? 0 : 1;
  LoadLog dump;
  dump.file = file;
  dump.num_windows = depth == 2 ? 1 : counts.elements(0, 0);
  const std::int64_t model_rows = counts.elements(row_level, 0);
  if (options.model_layers > 0 && model_rows != options.model_layers) {
    throw InputError(file, "logical_count",
                     fmt::format("{} layer rows (every model layer), got {}", options.model_layers, model_rows));
  }
  if (model_rows <= options.dense_layers) {
    throw InputError(file, "logical_count",
                     fmt::format("more than {} layer rows (the dense layers)", options.dense_layers));
  }
  dump.num_layers = model_rows;
  dump.num_experts = counts.elements(row_level + 1, 0);
  const std::string key_of_window = depth == 2 ? "logical_count" : "logical_count[{}]";
  for (std::int64_t window = 0; window < dump.num_windows; ++window) {
    check_matrix(counts, row_level, static_cast<std::size_t>(window), model_rows, dump.num_experts, file,
                 fmt::format(fmt::runtime(key_of_window), window));
  }
  dump.counts = std::move(counts.leaves);
  check_dense_rows_empty(dump, options.dense_layers, key_of_window);
  drop_dense_rows(dump, options.dense_layers);
  return dump;
}

}  // namespace moeplan::eplb::detail
