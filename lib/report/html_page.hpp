#pragma once
// One self-contained HTML document: inline style, inline SVG figures, tables; its content security
// policy forbids every fetch, so a report opens the same with or without a network.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace moeplan::report {

struct HtmlTable {
  explicit HtmlTable(std::vector<std::string> columns, std::string table_class = "")
      : header(std::move(columns)), css_class(std::move(table_class)) {}

  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::size_t> highlighted_rows;  // indices into rows
  std::string css_class;
};

class HtmlPage {
 public:
  HtmlPage(std::string title, std::string subtitle);

  void section(std::string_view heading);
  void paragraph(std::string_view text);
  void facts(const std::vector<std::pair<std::string, std::string>>& items);
  // `svg` is a finished <svg> element from the chart functions; `caption` says how to read it.
  void figure(const std::string& svg, std::string_view caption);
  void table(const HtmlTable& table);

  std::string finish() const;

 private:
  std::string title_;
  std::string subtitle_;
  std::string body_;
  bool section_open_ = false;
};

}  // namespace moeplan::report
