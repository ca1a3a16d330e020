#pragma once
// Pieces shared by the load-log readers (not part of the public interface).
#include <nlohmann/json.hpp>

#include <string>

#include "eplb/load_log.hpp"

namespace moeplan::eplb::detail {

// A token count from a JSON value: a non-negative integer (an integral float such as 12.0 is accepted).
TokenCount count_from_json(const nlohmann::json& value, const std::string& file, const std::string& key);

// Appends one [layers][experts] matrix to log.counts, checking every row has log.num_experts counts.
void append_matrix(const nlohmann::json& matrix, std::int64_t first_row, LoadLog& log, const std::string& key);

LoadLog load_log_from_our_json(const nlohmann::json& root, const std::string& file);
LoadLog load_log_from_sglang_json(const nlohmann::json& root, const std::string& file, const LoadReadOptions& options);

}  // namespace moeplan::eplb::detail
