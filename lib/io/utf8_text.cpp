#include "io/utf8_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace moeplan {

namespace {

// The length of the UTF-8 sequence `lead` starts, 0 when no sequence starts with it.
std::size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5U) == 0x6) return 2;
  if ((lead >> 4U) == 0xe) return 3;
  if ((lead >> 3U) == 0x1e) return 4;
  return 0;
}

// RFC 3629's well-formed sequences: the shortest encoding of the code point (C0 85 is an overlong U+0005),
// no UTF-16 surrogate (U+D800 to U+DFFF), nothing past U+10FFFF.
bool well_formed(std::uint32_t point, std::size_t length) {
  constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (point < kSmallest[length]) return false;
  return !(point >= 0xd800 && point <= 0xdfff) && point <= 0x10ffff;
}

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

}  // namespace

bool valid_utf8(std::string_view text) {
  std::size_t index = 0;
  while (index < text.size()) {
    const std::size_t length = sequence_length(static_cast<unsigned char>(text[index]));
    if (length == 0 || index + length > text.size()) return false;
    for (std::size_t next = 1; next < length; ++next) {
      if ((static_cast<unsigned char>(text[index + next]) >> 6U) != 0x2) return false;
    }
    if (!well_formed(code_point_at(text.substr(index)).value, length)) return false;
    index += length;
  }
  return true;
}

CodePoint code_point_at(std::string_view text) {
  if (text.empty()) return {};
  const auto lead = static_cast<unsigned char>(text.front());
  const std::size_t length = std::max<std::size_t>(1, sequence_length(lead));
  // The lead byte keeps 7 bits alone, else 6 - length of them; each continuation byte adds 6.
  std::uint32_t value = length == 1 ? lead : lead & (0x7fU >> length);
  for (std::size_t index = 1; index < length && index < text.size(); ++index)
    value = (value << 6U) | (static_cast<unsigned char>(text[index]) & 0x3fU);
  return {value, length};
}

bool is_line_break_or_control(std::uint32_t point) {
  return point < 0x20 || (point >= 0x7f && point <= 0x9f) || point == 0x2028 || point == 0x2029;
}

bool single_line_text(std::string_view text) {
  if (!valid_utf8(text)) return false;
  for (std::size_t index = 0; index < text.size();) {
    const CodePoint point = code_point_at(text.substr(index));
    if (is_line_break_or_control(point.value)) return false;
    index += point.length;
  }
  return true;
}

std::string printable(std::string_view text) {
  std::string shown;
  for (const char character : text) {
    const auto byte = static_cast<unsigned char>(character);
    shown += byte >= 0x20 && byte < 0x7f ? std::string(1, character) : fmt::format("\\x{:02x}", byte);
  }
  return shown;
}

std::optional<std::string> first_non_utf8_key(const nlohmann::json& json) {
  std::vector<std::pair<const nlohmann::json*, std::string>> pending = {{&json, ""}};
  while (!pending.empty()) {
    const auto [value, path] = pending.back();
    pending.pop_back();
    if (value->is_string() && !valid_utf8(value->get_ref<const std::string&>())) return path.empty() ? "<top>" : path;
    if (value->is_array()) {
      for (std::size_t index = 0; index < value->size(); ++index) {
        pending.emplace_back(&(*value)[index], fmt::format("{}[{}]", path, index));
      }
    }
    if (value->is_object()) {
      for (const auto& [key, child] : value->items()) {
        if (!valid_utf8(key)) return child_path(path, printable(key));
        pending.emplace_back(&child, child_path(path, key));
      }
    }
  }
  return std::nullopt;
}

}  // namespace moeplan
