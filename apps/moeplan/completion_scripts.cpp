// The bash and zsh scripts `moeplan completion` prints, written from the completion model.
#include <fmt/format.h>

#include <algorithm>

#include "completion.hpp"

namespace moeplan::cli {

namespace {

constexpr std::size_t kLongestDescription = 70;

std::string joined(const std::vector<std::string>& words, const std::string& separator) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : separator) + word;
  return text;
}

// Options of the top-level app that may also follow a subcommand (the fallthrough ones); not help or version.
std::vector<const CompletedOption*> global_options(const CompletedCommand& top) {
  std::vector<const CompletedOption*> options;
  for (const CompletedOption& option : top.options) {
    const bool builtin = std::find(option.names.begin(), option.names.end(), "--help") != option.names.end() ||
                         std::find(option.names.begin(), option.names.end(), "--version") != option.names.end();
    if (!builtin && !option.names.empty()) options.push_back(&option);
  }
  return options;
}

std::vector<std::string> words_of(const CompletedCommand& command, const std::vector<const CompletedOption*>& globals) {
  std::vector<std::string> words;
  for (const CompletedOption& option : command.options) {
    words.insert(words.end(), option.names.begin(), option.names.end());
    if (option.names.empty()) words.insert(words.end(), option.choices.begin(), option.choices.end());
  }
  for (const CompletedOption* option : globals) words.insert(words.end(), option->names.begin(), option->names.end());
  return words;
}

// The bash `case` arms that complete an option's value: its choices, file names, or nothing for a number.
std::string bash_value_arms(const CompletedCommand& command) {
  std::string arms;
  for (const CompletedOption& option : command.options) {
    if (!option.takes_value || option.names.empty()) continue;
    // A value that is neither a choice nor a file (a number, a layout, a GPU name) offers nothing: without
    // `compopt +o default` bash would fall back to file names.
    std::string action = "compopt +o default 2>/dev/null; COMPREPLY=(); return ;;";
    if (!option.choices.empty()) {
      action = fmt::format("mapfile -t COMPREPLY < <(compgen -W \"{}\" -- \"$current\"); return ;;",
                           joined(option.choices, " "));
    } else if (option.file_value) {
      // One name a line: a file name with a blank stays one candidate.
      action = "mapfile -t COMPREPLY < <(compgen -f -- \"$current\"); return ;;";
    }
    arms += fmt::format("        {}) {}\n", joined(option.names, "|"), action);
  }
  return arms;
}

// Text safe inside a single-quoted zsh _arguments spec: one line, no brackets, quotes, colons or expansions.
std::string zsh_text(std::string_view text) {
  text = text.substr(0, text.find('\n'));
  std::string safe;
  for (const char character : text.substr(0, kLongestDescription)) {
    switch (character) {
      case '[':
      case '(': safe += '<'; break;
      case ']':
      case ')': safe += '>'; break;
      case ':': safe += ','; break;
      case '\'': safe += "\u2019"; break;
      case '\\':
      case '`':
      case '$': safe += ' '; break;
      default: safe += character;
    }
  }
  return text.size() > kLongestDescription ? safe + "..." : safe;
}

std::string zsh_specs(const CompletedCommand& command, const std::vector<const CompletedOption*>& globals,
                      const char* indent) {
  std::vector<const CompletedOption*> options;
  for (const CompletedOption& option : command.options) options.push_back(&option);
  options.insert(options.end(), globals.begin(), globals.end());
  std::string specs;
  for (const CompletedOption* option : options) {
    std::string action;
    if (option->takes_value || option->names.empty()) {
      action = !option->choices.empty() ? fmt::format(":value:({})", joined(option->choices, " "))
               : option->file_value     ? ":file:_files"
                                        : ":value: ";
    }
    if (option->names.empty()) {
      specs +=
          fmt::format("{}'1:{}{}' \\\n", indent, zsh_text(option->description), action.substr(action.find(':', 1)));
      continue;
    }
    for (const std::string& name : option->names) {
      specs += fmt::format("{}'{}[{}]{}' \\\n", indent, name, zsh_text(option->description), action);
    }
  }
  return specs;
}

}  // namespace

std::string bash_completion(const std::vector<CompletedCommand>& commands) {
  const CompletedCommand& top = commands.front();
  const auto globals = global_options(top);
  std::vector<std::string> names;
  for (std::size_t index = 1; index < commands.size(); ++index) names.push_back(commands[index].name);
  std::string arms;
  for (std::size_t index = 1; index < commands.size(); ++index) {
    arms +=
        fmt::format("    {})\n      case \"$previous\" in\n{}      esac\n      words=\"{}\" ;;\n", commands[index].name,
                    bash_value_arms(commands[index]), joined(words_of(commands[index], globals), " "));
  }
  std::vector<std::string> top_words = words_of(top, {});
  top_words.insert(top_words.end(), names.begin(), names.end());
  return fmt::format(
      "# bash completion for moeplan, generated by `moeplan completion bash`.\n"
      "# Load it with: source <(moeplan completion bash)\n"
      "_moeplan() {{\n"
      "  local current=\"${{COMP_WORDS[COMP_CWORD]}}\" previous=\"${{COMP_WORDS[COMP_CWORD-1]}}\" command=\"\" word "
      "words\n"
      "  for word in \"${{COMP_WORDS[@]:1:COMP_CWORD-1}}\"; do\n"
      "    case \"$word\" in\n      {}) command=\"$word\"; break ;;\n    esac\n"
      "  done\n"
      "  case \"$command\" in\n{}    *) words=\"{}\" ;;\n  esac\n"
      "  mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$current\")\n"
      "}}\n"
      "complete -o default -F _moeplan moeplan\n",
      joined(names, "|"), arms, joined(top_words, " "));
}

std::string zsh_completion(const std::vector<CompletedCommand>& commands) {
  const CompletedCommand& top = commands.front();
  const auto globals = global_options(top);
  std::string described;
  std::string arms;
  for (std::size_t index = 1; index < commands.size(); ++index) {
    described += fmt::format("    '{}:{}'\n", commands[index].name, zsh_text(commands[index].description));
    arms += fmt::format("        {})\n          _arguments \\\n{}            && return 0 ;;\n", commands[index].name,
                        zsh_specs(commands[index], globals, "            "));
  }
  return fmt::format(
      "#compdef moeplan\n"
      "# zsh completion for moeplan, generated by `moeplan completion zsh`.\n"
      "# Save it as _moeplan in a directory on $fpath, or load it with: source <(moeplan completion zsh)\n"
      "_moeplan() {{\n"
      "  local state line\n"
      "  local -a commands\n"
      "  commands=(\n{}  )\n"
      "  _arguments -C \\\n{}    '1: :->command' \\\n    '*:: :->argument' && return 0\n"
      "  case $state in\n"
      "    command) _describe -t commands 'moeplan command' commands ;;\n"
      "    argument)\n      case $line[1] in\n{}      esac ;;\n"
      "  esac\n"
      "}}\n"
      "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _moeplan \"$@\"; else compdef _moeplan moeplan; fi\n",
      described, zsh_specs(top, {}, "    "), arms);
}

}  // namespace moeplan::cli
