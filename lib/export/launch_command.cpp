#include "export/launch_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include "io/utf8_text.hpp"

namespace moeplan::exporting {

std::optional<std::string> LaunchCommand::value_of(const std::string& flag) const {
  const auto found =
      std::find_if(arguments.begin(), arguments.end(), [&](const Argument& argument) { return argument.flag == flag; });
  if (found == arguments.end()) return std::nullopt;
  return fmt::format("{}", fmt::join(found->values, " "));
}

std::string shell_quote(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char character) {
    const auto byte = static_cast<unsigned char>(character);
    return std::isalnum(byte) || std::string_view("-_./:=,+@%").find(character) != std::string_view::npos;
  });
  if (plain) return text;
  std::string quoted = "'";
  for (const char character : text) quoted += character == '\'' ? std::string("'\\''") : std::string(1, character);
  return quoted + "'";
}

std::string environment_name(const std::string& name) {
  const bool valid = !name.empty() && std::isdigit(static_cast<unsigned char>(name.front())) == 0 &&
                     std::all_of(name.begin(), name.end(), [](char character) {
                       return std::isalnum(static_cast<unsigned char>(character)) != 0 || character == '_';
                     });
  if (!valid) throw std::invalid_argument("an environment variable named '" + comment_text(name) + "'");
  return name;
}

std::string memory_fraction_text(double fraction) {
  return fmt::format("{}", std::floor(fraction * 1000 + 1e-9) / 1000);
}

std::string comment_text(const std::string& text) {
  if (!valid_utf8(text)) return printable(text);
  std::string safe;
  for (std::size_t index = 0; index < text.size();) {
    const CodePoint point = code_point_at(std::string_view{text}.substr(index));
    // Below 0x80 as \xNN; NEL, the other C1 controls, U+2028 and U+2029 (line breaks to a YAML 1.1
    // reader) as \uXXXX.
    if (is_line_break_or_control(point.value))
      safe += point.value < 0x80 ? fmt::format("\\x{:02x}", point.value) : fmt::format("\\u{:04x}", point.value);
    else
      safe += text.substr(index, point.length);
    index += point.length;
  }
  return safe;
}

namespace {

// "# LINE\n" for every line of `comment`: whatever a line holds, it stays a comment.
std::string comment_lines(const std::string& comment) {
  std::string lines;
  std::size_t start = 0;
  for (std::size_t end = comment.find('\n'); end != std::string::npos; end = comment.find('\n', start)) {
    lines += fmt::format("# {}\n", comment_text(comment.substr(start, end - start)));
    start = end + 1;
  }
  return lines + fmt::format("# {}\n", comment_text(comment.substr(start)));
}

}  // namespace

std::string render_script(const LaunchCommand& command, const std::string& comment) {
  std::string script = "#!/bin/sh\n" + comment_lines(comment);
  for (const std::string& note : command.notes) script += fmt::format("# note: {}\n", comment_text(note));
  // The command names files that sit beside the script (an expert-location file).
  if (command.reads_output_files) script += "cd \"$(dirname \"$0\")\"\n";
  for (const auto& [name, value] : command.environment)
    script += fmt::format("export {}={}\n", environment_name(name), shell_quote(value));
  script += "exec";
  for (const std::string& token : command.program) script += fmt::format(" {}", shell_quote(token));
  for (const Argument& argument : command.arguments) {
    script += fmt::format(" \\\n    {}", shell_quote(argument.flag));
    for (const std::string& value : argument.values) script += fmt::format(" {}", shell_quote(value));
  }
  return script + "\n";
}

}  // namespace moeplan::exporting
