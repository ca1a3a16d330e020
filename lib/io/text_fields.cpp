#include "io/text_fields.hpp"

#include <charconv>

namespace moeplan {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  const auto last = text.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

bool parse_integer_field(const std::string& field, std::int64_t& value) {
  const std::string text = trimmed(field);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

}  // namespace moeplan
