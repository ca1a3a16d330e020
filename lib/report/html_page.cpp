#include "report/html_page.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/svg.hpp"

namespace moeplan::report {

namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;color:#222;margin:24px auto;max-width:1320px;padding:0 16px;background:#fff}"
    "h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid "
    "#ddd;padding-bottom:4px}"
    ".subtitle{color:#555;margin:0 0 16px}"
    "section{margin-bottom:12px}"
    "figure{display:inline-block;vertical-align:top;margin:8px 16px 8px 0;max-width:100%}"
    "figcaption{font-size:13px;color:#555;max-width:600px;margin-top:4px}"
    "svg{max-width:100%;height:auto;background:#fff}"
    "dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 16px;font-size:14px;margin:8px 0}"
    "dl.facts dt{color:#555}dl.facts dd{margin:0}"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0}"
    "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}"
    "th{background:#f4f4f4}td.number{text-align:right}"
    "tr.highlighted td{background:#fff1e6;font-weight:bold}"
    "p{max-width:900px;line-height:1.4}";

// Nothing may be fetched: no scripts, fonts, frames or images from anywhere; only the inline style.
constexpr const char* kSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'";

// Figures line up on the decimal side; words read from the left.
bool numeric(std::string_view cell) {
  const bool has_digit = cell.find_first_of("0123456789") != std::string_view::npos;
  return has_digit && cell.find_first_not_of("0123456789.,+-% ") == std::string_view::npos;
}

}  // namespace

HtmlPage::HtmlPage(std::string title, std::string subtitle)
    : title_(std::move(title)), subtitle_(std::move(subtitle)) {}

void HtmlPage::section(std::string_view heading) {
  if (section_open_) body_ += "</section>\n";
  body_ += fmt::format("<section>\n<h2>{}</h2>\n", escape_xml(heading));
  section_open_ = true;
}

void HtmlPage::paragraph(std::string_view text) { body_ += fmt::format("<p>{}</p>\n", escape_xml(text)); }

void HtmlPage::facts(const std::vector<std::pair<std::string, std::string>>& items) {
  body_ += "<dl class=\"facts\">";
  for (const auto& [name, value] : items)
    body_ += fmt::format("<dt>{}</dt><dd>{}</dd>", escape_xml(name), escape_xml(value));
  body_ += "</dl>\n";
}

void HtmlPage::figure(const std::string& svg, std::string_view caption) {
  body_ += fmt::format("<figure>{}<figcaption>{}</figcaption></figure>\n", svg, escape_xml(caption));
}

void HtmlPage::table(const HtmlTable& table) {
  body_ += table.css_class.empty() ? "<table>" : fmt::format("<table class=\"{}\">", escape_xml(table.css_class));
  body_ += "<thead><tr>";
  for (const std::string& cell : table.header) body_ += fmt::format("<th>{}</th>", escape_xml(cell));
  body_ += "</tr></thead><tbody>";
  for (std::size_t index = 0; index < table.rows.size(); ++index) {
    const bool highlighted =
        std::find(table.highlighted_rows.begin(), table.highlighted_rows.end(), index) != table.highlighted_rows.end();
    body_ += highlighted ? "<tr class=\"highlighted\">" : "<tr>";
    for (const std::string& cell : table.rows[index]) {
      body_ += fmt::format("<td{}>{}</td>", numeric(cell) ? " class=\"number\"" : "", escape_xml(cell));
    }
    body_ += "</tr>";
  }
  body_ += "</tbody></table>\n";
}

std::string HtmlPage::finish() const {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n<title>{}</title>\n<style>{}</style>\n</head>\n"
      "<body>\n<h1>{}</h1>\n<p class=\"subtitle\">{}</p>\n{}{}</body>\n</html>\n",
      kSecurityPolicy, escape_xml(title_), kStyle, escape_xml(title_), escape_xml(subtitle_), body_,
      section_open_ ? "</section>\n" : "");
}

}  // namespace moeplan::report
