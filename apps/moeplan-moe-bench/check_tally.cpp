#include "check_tally.hpp"

#include <cmath>
#include <iostream>
#include <limits>

namespace moeplan::bench {

double relative_error(std::span<const double> got, std::span<const double> want,
                      const std::vector<std::size_t>& elements) {
  double difference = 0, reference = 0;
  for (std::size_t index : elements) {
    if (!std::isfinite(got[index])) return std::numeric_limits<double>::infinity();
    difference += (got[index] - want[index]) * (got[index] - want[index]);
    reference += want[index] * want[index];
  }
  if (reference == 0) return difference == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(difference / reference);
}

void CheckTally::record(const std::string& name, bool passed, const std::string& detail) {
  (passed ? passed_ : failed_) += 1;
  std::cout << (passed ? "PASS " : "FAIL ") << name << ": " << detail << "\n";
}

}  // namespace moeplan::bench
