#include "eplb/load_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>

#include "eplb/load_log_readers.hpp"
#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "io/input_file.hpp"

namespace moeplan::eplb {

std::span<const TokenCount> LoadLog::row(std::int64_t window, std::int64_t layer) const {
  const auto offset = static_cast<std::size_t>((window * num_layers + layer) * num_experts);
  return {counts.data() + offset, static_cast<std::size_t>(num_experts)};
}

std::vector<TokenCount> LoadLog::layer_total(std::int64_t layer) const {
  std::vector<TokenCount> total(static_cast<std::size_t>(num_experts), 0);
  for (std::int64_t window = 0; window < num_windows; ++window) {
    const auto counts_of_window = row(window, layer);
    for (std::size_t expert = 0; expert < total.size(); ++expert) total[expert] += counts_of_window[expert];
  }
  return total;
}

LoadLog read_load_log(const std::filesystem::path& file, const LoadReadOptions& options) {
  std::ifstream stream = open_input_file(file.string(), kLargestDataFile);
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char character) { return static_cast<char>(std::tolower(character)); });
  if (extension == ".csv") return detail::stream_load_log_csv(stream, file.string());
  return detail::load_log_from(detail::stream_load_json(stream, file.string()), file.string(), options);
}

LoadLog parse_load_log_json(const std::string& text, const std::string& file, const LoadReadOptions& options) {
  return detail::load_log_from(detail::stream_load_json(text, file), file, options);
}

namespace detail {

std::int64_t CountList::elements(std::size_t level, std::size_t index) const {
  if (level >= children.size() || index >= children[level].size()) return -1;
  return children[level][index];
}

void check_matrix(const CountList& list, std::size_t level, std::size_t first_list, std::int64_t rows,
                  std::int64_t experts, const std::string& file, const std::string& key) {
  // Counts nested deeper than [layer][expert] would be counted as rows, and their extra level dropped.
  if (list.ragged || list.leaf_level != static_cast<int>(level) + 2) {
    throw InputError(file, key,
                     fmt::format("[layer][expert] token counts, nested {} lists deep{}", level + 2,
                                 list.ragged ? ", got counts at several depths"
                                             : fmt::format(", got counts {} deep", list.leaf_level)));
  }
  if (list.elements(level, first_list) != rows) {
    throw InputError(file, key, fmt::format("a list of {} layer rows", rows));
  }
  const auto first_row = static_cast<std::size_t>(static_cast<std::int64_t>(first_list) * rows);
  for (std::int64_t row = 0; row < rows; ++row) {
    if (list.ragged || list.elements(level + 1, first_row + static_cast<std::size_t>(row)) != experts) {
      throw InputError(file, fmt::format("{}[{}]", key, row), fmt::format("a row of {} counts (num_experts)", experts));
    }
  }
}

// [sglang-expert-distribution]: an SGLang dump carries "logical_count"; ours carries "loads" or "windows".
LoadLog load_log_from(StreamedLoadJson document, const std::string& file, const LoadReadOptions& options) {
  const bool ours = document.lists["loads"].present || document.lists["windows"].present;
  if (ours && document.lists["logical_count"].present) {
    throw InputError(file, "logical_count", "either SGLang's logical_count or our loads/windows, not both");
  }
  if (document.lists["logical_count"].present) return load_log_from_sglang_json(std::move(document), file, options);
  return load_log_from_our_json(std::move(document), file);
}

}  // namespace detail

}  // namespace moeplan::eplb
