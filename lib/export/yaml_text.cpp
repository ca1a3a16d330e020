#include "export/yaml_text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "io/utf8_text.hpp"

namespace moeplan::exporting {

namespace {

// [yaml-spec]: DEL, the C1 controls and U+FFFE/U+FFFF are not printable, and a YAML 1.1 reader takes NEL,
// U+2028 and U+2029 as line breaks (folding them inside quotes); JSON leaves them raw, so they are escaped.
bool yaml_must_escape(std::uint32_t point) {
  return point == 0x7f || (point >= 0x80 && point <= 0x9f) || point == 0x2028 || point == 0x2029 || point == 0xfffe ||
         point == 0xffff;
}

// [yaml-spec]: the plain words a YAML 1.1 reader takes for a boolean or null rather than a string.
bool yaml_typed_word(const std::string& word) {
  static const std::vector<std::string> kWords = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"};
  return std::find(kWords.begin(), kWords.end(), word) != kWords.end();
}

// Whether every line of `text` may stand in a literal block as it is: single-line text apart from the
// '\n' that ends each line, the last line ended, no line ending in a blank (a reader keeps it, but an
// editor may not), the first line not starting with a blank (it would set the block's indentation), and
// no empty last lines ([yaml-spec]: a block's default chomping keeps one final line break and drops the
// empty lines after it).
bool fits_literal_block(const std::string& text) {
  if (text.empty() || text.back() != '\n' || text.front() == ' ' || text.front() == '\n') return false;
  if (text.size() >= 2 && text[text.size() - 2] == '\n') return false;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string_view line = std::string_view{text}.substr(start, end - start);
    if (!single_line_text(line) || (!line.empty() && line.back() == ' ')) return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

std::string yaml_quoted(const std::string& text) {
  const std::string json = nlohmann::json(text).dump();
  std::string quoted;
  for (std::size_t index = 0; index < json.size();) {
    // A JSON dump is well-formed UTF-8.
    const CodePoint point = code_point_at(std::string_view{json}.substr(index));
    quoted += yaml_must_escape(point.value) ? fmt::format("\\u{:04x}", point.value) : json.substr(index, point.length);
    index += point.length;
  }
  return quoted;
}

std::string yaml_key(const std::string& key) {
  const bool name = !key.empty() && std::islower(static_cast<unsigned char>(key.front())) != 0 &&
                    std::all_of(key.begin(), key.end(), [](char character) {
                      const auto byte = static_cast<unsigned char>(character);
                      return std::islower(byte) != 0 || std::isdigit(byte) != 0 || character == '_';
                    });
  return name && !yaml_typed_word(key) ? key : yaml_quoted(key);
}

std::string yaml_block(const std::string& text, int indent) {
  if (!fits_literal_block(text)) return yaml_quoted(text) + "\n";
  std::string block = "|\n";
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string_view line = std::string_view{text}.substr(start, end - start);
    block += line.empty() ? std::string("\n") : fmt::format("{:{}}{}\n", "", indent, line);
    start = end + 1;
  }
  return block;
}

}  // namespace moeplan::exporting
