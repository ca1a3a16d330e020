#include "table.hpp"

#include <algorithm>
#include <cctype>

namespace moeplan::cli {

namespace {

// Display width: count UTF-8 code points, not bytes, so labels with '·' align.
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(
      text.begin(), text.end(), [](char byte) { return (static_cast<unsigned char>(byte) & 0xC0) != 0x80; }));
}

bool looks_numeric(const std::string& text) {
  return !text.empty() &&
         (std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '-' || text.front() == '+');
}

}  // namespace

Table::Table(std::vector<std::string> header) : header_(std::move(header)) {}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

void Table::add_rule() { rows_.emplace_back(); }

std::string Table::render() const {
  std::vector<std::size_t> widths(header_.size());
  for (std::size_t column = 0; column < header_.size(); ++column) widths[column] = display_width(header_[column]);
  for (const auto& row : rows_) {
    for (std::size_t column = 0; column < row.size(); ++column) {
      widths[column] = std::max(widths[column], display_width(row[column]));
    }
  }
  std::string rule;
  for (std::size_t column = 0; column < widths.size(); ++column) {
    rule += std::string(widths[column], '-') + (column + 1 < widths.size() ? "  " : "");
  }
  const auto render_row = [&](const std::vector<std::string>& cells, bool align_numbers) {
    std::string line;
    for (std::size_t column = 0; column < cells.size(); ++column) {
      const std::string padding(widths[column] - display_width(cells[column]), ' ');
      const bool right = align_numbers && column > 0 && looks_numeric(cells[column]);
      line += right ? padding + cells[column] : cells[column] + (column + 1 < cells.size() ? padding : "");
      if (column + 1 < cells.size()) line += "  ";
    }
    return line + "\n";
  };
  std::string text = render_row(header_, false) + rule + "\n";
  for (const auto& row : rows_) text += row.empty() ? rule + "\n" : render_row(row, true);
  return text;
}

}  // namespace moeplan::cli
