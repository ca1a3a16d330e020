#pragma once
// How every moeplan executable ends: parse and run, then turn what was thrown into a message on stderr
// and the exit code (0 done, 1 internal error, 2 bad input, a command's own code otherwise).
#include <CLI/CLI.hpp>

namespace moeplan::cli {

constexpr int kBadInputExit = 2;

int run_command_line(CLI::App& app, int argc, char** argv);

}  // namespace moeplan::cli
