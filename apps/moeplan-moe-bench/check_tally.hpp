#pragma once
// Pass/fail bookkeeping of `check`, and the error measure every numeric check uses.
#include <span>
#include <string>
#include <vector>

namespace moeplan::bench {

// ||got - want|| / ||want|| over the listed elements; NaN or infinity in `got` gives infinity.
double relative_error(std::span<const double> got, std::span<const double> want,
                      const std::vector<std::size_t>& elements);

class CheckTally {
 public:
  void record(const std::string& name, bool passed, const std::string& detail);
  int passed() const { return passed_; }
  int failed() const { return failed_; }

 private:
  int passed_ = 0;
  int failed_ = 0;
};

}  // namespace moeplan::bench
