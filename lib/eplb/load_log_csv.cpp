// CSV load log: one `layer,expert,count` line per (MoE layer, expert), an optional header line.
// The shape is the largest layer and expert index plus one; absent pairs count zero tokens.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <utility>

#include "eplb/load_log.hpp"
#include "eplb/load_log_readers.hpp"
#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "io/text_fields.hpp"

namespace moeplan::eplb {

namespace {

constexpr std::int64_t kMaxIndex = std::int64_t{1} << 20;

std::int64_t integer_field(const std::string& field, std::int64_t limit, const std::string& file,
                           const std::string& key) {
  std::int64_t value = 0;
  if (!parse_integer_field(field, value) || value < 0 || value > limit) {
    throw InputError(file, key, fmt::format("an integer in [0, {}], got '{}'", limit, echoed(trimmed(field))));
  }
  return value;
}

}  // namespace

namespace detail {

// Dense [layer][expert] counts grown as lines arrive, so a log streams in one pass at 8 bytes a cell.
class DenseCounts {
 public:
  // False when the cell was already filled.
  bool add(std::int64_t layer, std::int64_t expert, TokenCount count, const std::string& file,
           const std::string& where) {
    layers_ = std::max(layers_, layer + 1);
    experts_ = std::max(experts_, expert + 1);
    // A few sparse lines can name a huge dense table ("8191,8191,1"): its size is checked before it grows.
    check_budget(file, where, static_cast<double>(layers_) * static_cast<double>(experts_), kMostLoadCells,
                 "dense (layer, expert) cells");
    if (rows_.size() <= static_cast<std::size_t>(layer)) rows_.resize(static_cast<std::size_t>(layer + 1));
    auto& row = rows_[static_cast<std::size_t>(layer)];
    if (row.size() <= static_cast<std::size_t>(expert)) row.resize(static_cast<std::size_t>(expert + 1), -1);
    auto& cell = row[static_cast<std::size_t>(expert)];
    if (cell >= 0) return false;
    cell = count;
    return true;
  }

  bool empty() const { return layers_ == 0; }

  // [layers][experts] flat, absent pairs zero.
  LoadLog to_log(const std::string& file) {
    LoadLog log;
    log.file = file;
    log.num_layers = layers_;
    log.num_experts = experts_;
    log.counts.assign(static_cast<std::size_t>(layers_ * experts_), 0);
    for (std::size_t layer = 0; layer < rows_.size(); ++layer) {
      for (std::size_t expert = 0; expert < rows_[layer].size(); ++expert) {
        log.counts[layer * static_cast<std::size_t>(experts_) + expert] = std::max<TokenCount>(0, rows_[layer][expert]);
      }
      std::vector<TokenCount>().swap(rows_[layer]);  // release each row as it is copied
    }
    return log;
  }

 private:
  std::vector<std::vector<TokenCount>> rows_;  // -1 marks an absent pair
  std::int64_t layers_ = 0;
  std::int64_t experts_ = 0;
};

LoadLog stream_load_log_csv(std::istream& lines, const std::string& file) {
  DenseCounts counts;
  std::string line;
  for (int line_number = 1; std::getline(lines, line); ++line_number) {
    if (trimmed(line).empty() || (line_number == 1 && trimmed(line).rfind("layer", 0) == 0)) continue;
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    const std::string where = fmt::format("line {}", line_number);
    if (fields.size() != 3)
      throw InputError(file, where, fmt::format("3 fields layer,expert,count, got {}", fields.size()));
    const auto layer = integer_field(fields[0], kMaxIndex, file, where + " layer");
    const auto expert = integer_field(fields[1], kMaxIndex, file, where + " expert");
    const auto count = integer_field(fields[2], kMaxTokenCount, file, where + " count");
    if (!counts.add(layer, expert, count, file, where)) {
      throw InputError(file, where, fmt::format("one line per (layer, expert); ({}, {}) appears twice", layer, expert));
    }
  }
  if (counts.empty()) throw InputError(file, "", "at least one layer,expert,count line");
  return counts.to_log(file);
}

}  // namespace detail

LoadLog parse_load_log_csv(const std::string& text, const std::string& file) {
  std::istringstream lines(text);
  return detail::stream_load_log_csv(lines, file);
}

}  // namespace moeplan::eplb
