#include "export/launch_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

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

std::string memory_fraction_text(double fraction) {
  return fmt::format("{}", std::floor(fraction * 1000 + 1e-9) / 1000);
}

std::string comment_text(const std::string& text) {
  std::string safe;
  for (const char character : text) {
    const auto byte = static_cast<unsigned char>(character);
    safe += byte < 0x20 || byte == 0x7f ? fmt::format("\\x{:02x}", byte) : std::string(1, character);
  }
  return safe;
}

std::string render_script(const LaunchCommand& command, const std::string& comment) {
  std::string script = fmt::format("#!/bin/sh\n# {}\n", comment);
  for (const std::string& note : command.notes) script += fmt::format("# note: {}\n", comment_text(note));
  // The command names files that sit beside the script (an expert-location file).
  if (command.reads_output_files) script += "cd \"$(dirname \"$0\")\"\n";
  for (const auto& [name, value] : command.environment)
    script += fmt::format("export {}={}\n", name, shell_quote(value));
  script += "exec";
  for (const std::string& token : command.program) script += fmt::format(" {}", shell_quote(token));
  for (const Argument& argument : command.arguments) {
    script += fmt::format(" \\\n    {}", argument.flag);
    for (const std::string& value : argument.values) script += fmt::format(" {}", shell_quote(value));
  }
  return script + "\n";
}

}  // namespace moeplan::exporting
