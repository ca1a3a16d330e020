#pragma once
// One field of a delimited text line (a CSV cell): its text without surrounding blanks, and a whole
// decimal integer read from it.
#include <cstdint>
#include <string>

namespace moeplan {

std::string trimmed(const std::string& text);

// True when `field`, blanks aside, is a whole decimal integer; `value` then holds it.
bool parse_integer_field(const std::string& field, std::int64_t& value);

}  // namespace moeplan
