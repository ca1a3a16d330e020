#pragma once
// Pieces shared by the load-log readers (not part of the public interface).
#include <nlohmann/json.hpp>

#include <istream>
#include <map>
#include <string>
#include <vector>

#include "eplb/load_log.hpp"

namespace moeplan::eplb::detail {

// 2^40 tokens per expert and layer keeps every sum over experts, windows and replicas inside 64 bits.
inline constexpr TokenCount kMaxTokenCount = TokenCount{1} << 40;

// One nested list of token counts as the streaming reader met it: the counts in document order,
// and per nesting level the element count of each list at that level (its shape, without a tree).
struct CountList {
  bool present = false;
  std::vector<TokenCount> leaves;
  std::vector<std::vector<std::int64_t>> children;  // [level][list at that level] -> elements
  int leaf_level = 0;                               // nesting level the counts sit at (1 = the outer list)
  bool ragged = false;                              // counts at more than one level

  // Element count of list `index` at `level`, or -1 when there is none.
  std::int64_t elements(std::size_t level, std::size_t index) const;
};

// The top-level scalars of a load-log object and its count lists ("loads", "windows", "logical_count").
struct StreamedLoadJson {
  nlohmann::json scalars = nlohmann::json::object();
  std::map<std::string, CountList> lists;
};

StreamedLoadJson stream_load_json(std::istream& stream, const std::string& file);
LoadLog stream_load_log_csv(std::istream& lines, const std::string& file);
StreamedLoadJson stream_load_json(const std::string& text, const std::string& file);

// Checks that `list` holds `rows` rows of `experts` counts starting at list `first_list` of level
// `level` (named `key` in errors); throws InputError naming the first row that does not.
void check_matrix(const CountList& list, std::size_t level, std::size_t first_list, std::int64_t rows,
                  std::int64_t experts, const std::string& file, const std::string& key);

// Our format or SGLang's, by the keys the document carries.
LoadLog load_log_from(StreamedLoadJson document, const std::string& file, const LoadReadOptions& options);

LoadLog load_log_from_our_json(StreamedLoadJson document, const std::string& file);
LoadLog load_log_from_sglang_json(StreamedLoadJson document, const std::string& file, const LoadReadOptions& options);

}  // namespace moeplan::eplb::detail
