#include "eplb/load_log.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "eplb/load_log_readers.hpp"
#include "io/input_error.hpp"

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
  std::ifstream stream(file, std::ios::binary);
  if (!stream) throw InputError(file.string(), "", "a readable load-log file");
  std::stringstream buffer;
  buffer << stream.rdbuf();
  if (file.extension() == ".csv") return parse_load_log_csv(buffer.str(), file.string());
  return parse_load_log_json(buffer.str(), file.string(), options);
}

LoadLog parse_load_log_json(const std::string& text, const std::string& file, const LoadReadOptions& options) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw InputError(file, "", fmt::format("valid JSON ({})", error.what()));
  }
  if (!root.is_object()) throw InputError(file, "", "a JSON object");
  // engines.md §1.5: an SGLang dump carries "logical_count"; ours carries "loads" or "windows".
  if (root.contains("logical_count")) return detail::load_log_from_sglang_json(root, file, options);
  return detail::load_log_from_our_json(root, file);
}

namespace detail {

// 2^40 tokens per expert and layer keeps every sum over experts, windows and replicas inside 64 bits.
constexpr TokenCount kMaxTokenCount = TokenCount{1} << 40;

TokenCount count_from_json(const nlohmann::json& value, const std::string& file, const std::string& key) {
  if (value.is_number_unsigned() || value.is_number_integer()) {
    const auto count = value.get<std::int64_t>();
    if (count < 0 || count > kMaxTokenCount) {
      throw InputError(file, key, fmt::format("a token count in [0, 2^40], got {}", value.dump()));
    }
    return count;
  }
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (!std::isfinite(number) || number < 0 || number != std::floor(number) || number > static_cast<double>(kMaxTokenCount)) {
      throw InputError(file, key, fmt::format("a whole token count in [0, 2^40], got {}", value.dump()));
    }
    return static_cast<TokenCount>(number);
  }
  throw InputError(file, key, fmt::format("a token count (a number), got {}", value.dump()));
}

void append_matrix(const nlohmann::json& matrix, std::int64_t first_row, LoadLog& log, const std::string& key) {
  if (!matrix.is_array() || static_cast<std::int64_t>(matrix.size()) != first_row + log.num_layers) {
    throw InputError(log.file, key, fmt::format("a list of {} layer rows", first_row + log.num_layers));
  }
  for (std::int64_t layer = first_row; layer < first_row + log.num_layers; ++layer) {
    const auto& row = matrix[static_cast<std::size_t>(layer)];
    const std::string row_key = fmt::format("{}[{}]", key, layer);
    if (!row.is_array() || static_cast<std::int64_t>(row.size()) != log.num_experts) {
      throw InputError(log.file, row_key, fmt::format("a row of {} counts (num_experts)", log.num_experts));
    }
    for (std::size_t expert = 0; expert < row.size(); ++expert) {
      log.counts.push_back(count_from_json(row[expert], log.file, fmt::format("{}[{}]", row_key, expert)));
    }
  }
}

}  // namespace detail

}  // namespace moeplan::eplb
