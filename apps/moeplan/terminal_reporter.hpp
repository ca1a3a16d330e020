#pragma once
// The reporter the CLI hands to the library: notes and warnings to stderr, and a progress bar (stage,
// share done, time left) on a terminal once a command has run for a second.
#include <chrono>
#include <string>

#include "io/reporter.hpp"

namespace moeplan::cli {

class TerminalReporter final : public Reporter {
 public:
  TerminalReporter();
  ~TerminalReporter() override;
  TerminalReporter(const TerminalReporter&) = delete;
  TerminalReporter& operator=(const TerminalReporter&) = delete;

  void note(std::string_view message) override;
  void warning(std::string_view message) override;
  void progress(std::string_view stage, double fraction_done) override;

 private:
  using Clock = std::chrono::steady_clock;

  void draw(double fraction_done);
  void clear();

  bool enabled_;                     // stderr is a terminal and --quiet is off
  Clock::time_point started_;        // the command's start: no bar before a second has passed
  Clock::time_point stage_started_;  // time left is extrapolated from the current stage alone
  Clock::time_point drawn_;
  std::string stage_;
  double last_fraction_ = 0;
  bool visible_ = false;
};

}  // namespace moeplan::cli
