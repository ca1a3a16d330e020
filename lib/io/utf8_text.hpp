#pragma once
// Text that has to be UTF-8 (JSON holds nothing else) and text shown back in a message.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace moeplan {

// Whether `text` is well-formed UTF-8 (no stray continuation byte, no truncated sequence).
bool valid_utf8(std::string_view text);

// The code point at the front of `text` and the bytes its sequence takes, for well-formed UTF-8 (valid_utf8);
// {0, 0} for empty text.
struct CodePoint {
  std::uint32_t value = 0;
  std::size_t length = 0;
};
CodePoint code_point_at(std::string_view text);

// Whether `point` breaks a line or is a control for some reader of an output: the C0 controls, DEL, the
// C1 controls (U+0085 NEL among them) and U+2028 / U+2029, which YAML 1.1 readers take as line breaks.
bool is_line_break_or_control(std::uint32_t point);

// Well-formed UTF-8 holding no code point is_line_break_or_control flags: text that stays on one line
// in a script, a comment, a YAML or JSON value, whichever reader reads it.
bool single_line_text(std::string_view text);

// `text` as a message may echo it: bytes outside printable ASCII written as \xNN.
std::string printable(std::string_view text);

// The key path ("model.file", "runs[2].label") of the first string in `json`, key or value, that is not
// UTF-8; nullopt when every one is.
std::optional<std::string> first_non_utf8_key(const nlohmann::json& json);

}  // namespace moeplan
