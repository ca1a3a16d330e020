// CSV load log: one `layer,expert,count` line per (MoE layer, expert), an optional header line.
// The shape is the largest layer and expert index plus one; absent pairs count zero tokens.
#include <fmt/format.h>

#include <charconv>
#include <map>
#include <sstream>
#include <utility>

#include "eplb/load_log.hpp"
#include "io/input_error.hpp"

namespace moeplan::eplb {

namespace {

constexpr std::int64_t kMaxIndex = std::int64_t{1} << 20;
constexpr TokenCount kMaxTokenCount = TokenCount{1} << 40;  // as for JSON counts (load_log.cpp)

std::string trimmed(std::string text) {
  const auto first = text.find_first_not_of(" \t\r");
  const auto last = text.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

std::int64_t integer_field(const std::string& field, std::int64_t limit, const std::string& file, const std::string& key) {
  const std::string text = trimmed(field);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0 || value > limit) {
    throw InputError(file, key, fmt::format("an integer in [0, {}], got '{}'", limit, text));
  }
  return value;
}

}  // namespace

LoadLog parse_load_log_csv(const std::string& text, const std::string& file) {
  std::map<std::pair<std::int64_t, std::int64_t>, TokenCount> counts;  // (layer, expert) -> tokens
  std::istringstream lines(text);
  std::string line;
  for (int line_number = 1; std::getline(lines, line); ++line_number) {
    if (trimmed(line).empty() || (line_number == 1 && trimmed(line).rfind("layer", 0) == 0)) continue;
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    const std::string where = fmt::format("line {}", line_number);
    if (fields.size() != 3) throw InputError(file, where, fmt::format("3 fields layer,expert,count, got {}", fields.size()));
    const auto layer = integer_field(fields[0], kMaxIndex, file, where + " layer");
    const auto expert = integer_field(fields[1], kMaxIndex, file, where + " expert");
    const auto count = integer_field(fields[2], kMaxTokenCount, file, where + " count");
    if (!counts.emplace(std::pair{layer, expert}, count).second) {
      throw InputError(file, where, fmt::format("one line per (layer, expert); ({}, {}) appears twice", layer, expert));
    }
  }
  if (counts.empty()) throw InputError(file, "", "at least one layer,expert,count line");
  LoadLog log;
  log.file = file;
  for (const auto& [key, count] : counts) {
    log.num_layers = std::max(log.num_layers, key.first + 1);
    log.num_experts = std::max(log.num_experts, key.second + 1);
  }
  if (log.num_layers * log.num_experts > (std::int64_t{1} << 26)) {
    throw InputError(file, "", fmt::format("at most 2^26 (layer, expert) pairs, got {} x {}", log.num_layers, log.num_experts));
  }
  log.counts.assign(static_cast<std::size_t>(log.num_layers * log.num_experts), 0);
  for (const auto& [key, count] : counts) {
    log.counts[static_cast<std::size_t>(key.first * log.num_experts + key.second)] = count;
  }
  return log;
}

}  // namespace moeplan::eplb
