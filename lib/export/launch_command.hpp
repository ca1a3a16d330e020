#pragma once
// One engine process on one node: environment, program and arguments, kept as tokens so tests
// compare arguments rather than text, and rendered to a POSIX shell script only at the end.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace moeplan::exporting {

struct Argument {
  std::string flag;
  std::vector<std::string> values;  // none for a boolean flag, several for a list flag (nargs "+")
};

struct LaunchCommand {
  std::vector<std::pair<std::string, std::string>> environment;
  std::vector<std::string> program;  // {"python3", "-m", "sglang.launch_server"}
  std::vector<Argument> arguments;
  bool reads_output_files = false;  // refers to files written beside the script
  std::vector<std::string> notes;   // what the writer adjusted for the engine release, one comment line each

  void add(std::string flag) { arguments.push_back({std::move(flag), {}}); }
  void add(std::string flag, std::string value) { arguments.push_back({std::move(flag), {std::move(value)}}); }
  void add(std::string flag, std::vector<std::string> values) {
    arguments.push_back({std::move(flag), std::move(values)});
  }
  void set_environment(std::string name, std::string value) {
    environment.emplace_back(std::move(name), std::move(value));
  }

  // The value of `flag`, or nullopt when absent; "" for a boolean flag that is present, a list's values
  // separated by spaces.
  std::optional<std::string> value_of(const std::string& flag) const;
};

// Single-quotes `text` unless it consists of characters the shell never interprets.
std::string shell_quote(const std::string& text);

// `name` when it is a shell variable name ([A-Za-z_][A-Za-z0-9_]*); throws std::invalid_argument otherwise.
std::string environment_name(const std::string& name);

// A memory fraction rounded down to 0.001, so the engine never takes more than the plan allows.
std::string memory_fraction_text(double fraction);

// A comment line's text with every control byte written as \xNN, so no value can end the comment.
std::string comment_text(const std::string& text);

// #!/bin/sh, a comment line per line of `comment` ("# " before each, control bytes as \xNN, so whatever
// it holds stays a comment), a line per note, the environment, then `exec` of the command, one argument
// per line. A value placed in a comment goes through comment_text first, so it keeps to its line; every
// program token, flag and value is shell-quoted.
std::string render_script(const LaunchCommand& command, const std::string& comment);

}  // namespace moeplan::exporting
