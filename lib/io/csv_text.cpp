#include "io/csv_text.hpp"

namespace moeplan {

std::string csv_field(const std::string& text) {
  const bool plain =
      text.find_first_of(",\"\r\n") == std::string::npos &&
      (text.empty() || (text.front() != ' ' && text.back() != ' ' && text.front() != '\t' && text.back() != '\t'));
  if (plain) return text;
  std::string quoted = "\"";
  for (const char character : text) quoted += character == '"' ? std::string("\"\"") : std::string(1, character);
  return quoted + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t index = 0; index < fields.size(); ++index) line += (index == 0 ? "" : ",") + fields[index];
  return line + "\n";
}

}  // namespace moeplan
