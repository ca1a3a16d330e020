#pragma once
// The reporter the CLI hands to the library: notes and warnings to stderr, progress ignored.
#include <cstdio>
#include <string>

#include "io/reporter.hpp"

namespace moeplan::cli {

class TerminalReporter final : public Reporter {
 public:
  void note(std::string_view message) override { std::fprintf(stderr, "%s\n", std::string(message).c_str()); }
  void warning(std::string_view message) override {
    std::fprintf(stderr, "warning: %s\n", std::string(message).c_str());
  }
  void progress(std::string_view, double) override {}
};

}  // namespace moeplan::cli
