#pragma once
// How every moeplan executable ends: parse and run, then turn what was thrown into a message on stderr
// and the exit code (0 done, 1 internal error, 2 bad input, a command's own code otherwise). A closed
// standard stream or a standard output that cannot be written is bad input too.
#include <CLI/CLI.hpp>

namespace moeplan::cli {

constexpr int kBadInputExit = 2;
constexpr int kInterruptedExitCode = 130;  // 128 + SIGINT, as shells report it; 143 after SIGTERM

int run_command_line(CLI::App& app, int argc, char** argv);

// Flushes the standard output; throws InputError when anything printed could not be written (a full
// disk, /dev/full, a closed pipe).
void check_standard_output();

}  // namespace moeplan::cli
