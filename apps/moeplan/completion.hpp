#pragma once
// `moeplan completion bash|zsh`: a shell completion script generated from the app's own subcommands
// and options, so a new option completes without anyone editing a script.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace moeplan::cli {

struct CompletedOption {
  std::vector<std::string> names;  // "-q", "--quiet"; empty for a positional
  std::string description;
  bool takes_value = false;
  bool file_value = false;           // a text value: offer file names
  std::vector<std::string> choices;  // the only values accepted, where the option lists them
};

struct CompletedCommand {
  std::string name;  // empty for the top-level app
  std::string description;
  std::vector<CompletedOption> options;
};

// The top-level app first, then each subcommand in the order they were added.
std::vector<CompletedCommand> completion_model(const CLI::App& app);

std::string bash_completion(const std::vector<CompletedCommand>& commands);
std::string zsh_completion(const std::vector<CompletedCommand>& commands);

void add_completion_command(CLI::App& app);

}  // namespace moeplan::cli
