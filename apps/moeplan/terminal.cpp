#include "terminal.hpp"

#include <unistd.h>

#include <cstdlib>

namespace moeplan::cli {

namespace {

bool quiet_requested = false;

const char* escape(Style style) {
  switch (style) {
    case Style::bold: return "\033[1m";
    case Style::red: return "\033[31m";
    case Style::yellow: return "\033[33m";
    case Style::green: return "\033[32m";
    case Style::dim: return "\033[2m";
  }
  return "";
}

// The result tables go to stdout through fmt::print in every command; pointing stdout at the null
// device silences them all without each command knowing about --quiet.
void silence_standard_output() {
  if (std::freopen("/dev/null", "w", stdout) == nullptr) {
    throw CLI::RuntimeError("moeplan: --quiet: cannot open /dev/null to silence the output", 1);
  }
}

}  // namespace

bool colour_enabled(std::FILE* stream) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour != nullptr && no_colour[0] != '\0') return false;
  const char* terminal = std::getenv("TERM");
  if (terminal != nullptr && std::string_view(terminal) == "dumb") return false;
  return isatty(fileno(stream)) == 1;
}

std::string styled(std::string_view text, Style style, std::FILE* stream) {
  if (!colour_enabled(stream)) return std::string(text);
  return std::string(escape(style)) + std::string(text) + "\033[0m";
}

bool quiet() { return quiet_requested; }

void add_terminal_options(CLI::App& app) {
  app.add_flag("-q,--quiet", quiet_requested,
               "print only warnings and errors: no progress, notes or tables (files are still written)");
  app.fallthrough();
  // After parsing and --help, before any subcommand runs.
  app.parse_complete_callback([] {
    if (quiet_requested) silence_standard_output();
  });
}

}  // namespace moeplan::cli
