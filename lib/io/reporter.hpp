#pragma once
// The library never prints; the CLI passes a reporter in and decides where messages go.
#include <string_view>

namespace moeplan {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void note(std::string_view message) = 0;
  virtual void warning(std::string_view message) = 0;
  virtual void progress(std::string_view stage, double fraction_done) = 0;
};

// Swallows everything: the default for library callers that do not care (tests, validation).
class SilentReporter final : public Reporter {
 public:
  void note(std::string_view) override {}
  void warning(std::string_view) override {}
  void progress(std::string_view, double) override {}
};

}  // namespace moeplan
