#pragma once
// What the terminal allows: colour only where a person reads it (a TTY, NO_COLOR unset, TERM not
// dumb), and the global --quiet that leaves only warnings and errors.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <string_view>

namespace moeplan::cli {

enum class Style { bold, red, yellow, green, dim };

// True when `stream` is a terminal, NO_COLOR is unset or empty (no-color.org) and TERM is not "dumb".
bool colour_enabled(std::FILE* stream);

// `text` wrapped in the ANSI escape of `style` when colour_enabled(stream), as it is otherwise.
std::string styled(std::string_view text, Style style, std::FILE* stream);

// Set by --quiet: no progress, notes or result tables; warnings and errors still reach stderr.
bool quiet();

// Adds -q/--quiet to the top-level app, accepted before or after the subcommand. Call before the
// subcommands are added: they inherit the fallthrough that lets the flag follow them.
void add_terminal_options(CLI::App& app);

}  // namespace moeplan::cli
