#pragma once
// Expert-load logs: how many tokens each logical expert of each MoE layer received, over one or
// more time windows. Counts are exact integers (README: load logs).
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace moeplan::eplb {

using TokenCount = std::int64_t;

// Token counts of shape [windows][layers][experts], stored flat in that order.
struct LoadLog {
  std::string file;  // where it was read from, for error messages
  std::int64_t num_windows = 1;
  std::int64_t num_layers = 0;  // MoE layers only
  std::int64_t num_experts = 0;
  std::int64_t num_groups = 0;     // 0 when the file does not say
  std::vector<TokenCount> counts;  // [num_windows][num_layers][num_experts]

  // One window's counts for one layer: shape [num_experts].
  std::span<const TokenCount> row(std::int64_t window, std::int64_t layer) const;
  // The counts of one layer summed over all windows: shape [num_experts].
  std::vector<TokenCount> layer_total(std::int64_t layer) const;
};

// What the reader needs to pick the MoE layers out of an engine dump that lists every model layer.
struct LoadReadOptions {
  std::int64_t dense_layers = -1;  // -1: unknown (an SGLang dump then cannot be read)
  std::int64_t model_layers = 0;   // 0: unknown; otherwise an SGLang dump must have this many rows
};

// Reads our JSON ({"num_layers", "num_experts", "loads" | "windows"}), SGLang's JSON with
// "logical_count", or CSV (layer,expert,count), chosen by the ".csv" extension and the JSON keys.
LoadLog read_load_log(const std::filesystem::path& file, const LoadReadOptions& options);

// The readers behind read_load_log, each for one format; `text` is the whole file.
LoadLog parse_load_log_csv(const std::string& text, const std::string& file);
LoadLog parse_load_log_json(const std::string& text, const std::string& file, const LoadReadOptions& options);

}  // namespace moeplan::eplb
