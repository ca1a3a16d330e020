#include "completion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>

namespace moeplan::cli {

namespace {

// CLI11 writes an option's accepted set into its type name, e.g. "TEXT:{auto,global}".
std::vector<std::string> choices_in(const std::string& type_name) {
  const auto open = type_name.find('{');
  const auto close = type_name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> choices;
  std::string current;
  for (const char character : type_name.substr(open + 1, close - open - 1)) {
    if (character == ',') {
      choices.push_back(current);
      current.clear();
    } else if (character != ' ') {
      current += character;
    }
  }
  if (!current.empty()) choices.push_back(current);
  return choices;
}

// Text options whose value is a name, a layout or a list, never a path: completing files there misleads.
bool names_no_file(const CLI::Option& option) {
  static const std::set<std::string> kNotPaths = {"gpu",          "layout",       "engine-version", "model-path",
                                                  "hosts",        "image",        "kv-connector",   "bench-model-id",
                                                  "bench-system", "bench-layout", "kv-cache-dtype", "engine"};
  const auto& names = option.get_lnames();
  return std::any_of(names.begin(), names.end(), [](const std::string& name) { return kNotPaths.count(name) > 0; });
}

CompletedOption completed_option(const CLI::Option& option) {
  CompletedOption completed;
  for (const std::string& name : option.get_snames()) completed.names.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) completed.names.push_back("--" + name);
  completed.description = option.get_description();
  completed.takes_value = option.get_items_expected_min() > 0;  // CLI11 counts a flag as expecting nothing
  const std::string type_name = option.get_type_name();
  completed.choices = choices_in(type_name);
  completed.file_value =
      completed.takes_value && completed.choices.empty() && type_name.rfind("TEXT", 0) == 0 && !names_no_file(option);
  return completed;
}

CompletedCommand completed_command(const CLI::App& app) {
  CompletedCommand command{app.get_name(), app.get_description(), {}};
  for (const CLI::Option* option : app.get_options()) command.options.push_back(completed_option(*option));
  return command;
}

}  // namespace

std::vector<CompletedCommand> completion_model(const CLI::App& app) {
  std::vector<CompletedCommand> commands{completed_command(app)};
  commands.front().name.clear();
  for (const CLI::App* subcommand : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands.push_back(completed_command(*subcommand));
  }
  return commands;
}

void add_completion_command(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  auto* command = app.add_subcommand("completion", "Print a shell completion script for bash or zsh");
  command->add_option("shell", *shell, "the shell to complete in")->required()->check(CLI::IsMember({"bash", "zsh"}));
  command->footer(
      "Example:\n  source <(moeplan completion bash)          # in ~/.bashrc\n"
      "  moeplan completion zsh > ~/.zfunc/_moeplan  # with ~/.zfunc on $fpath, then compinit");
  command->callback([&app, shell] {
    const std::vector<CompletedCommand> commands = completion_model(app);
    fmt::print("{}", *shell == "zsh" ? zsh_completion(commands) : bash_completion(commands));
  });
}

}  // namespace moeplan::cli
