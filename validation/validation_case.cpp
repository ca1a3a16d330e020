#include "validation_case.hpp"

#include <cmath>

namespace moeplan::validation {

double ValidationCase::error() const {
  if (absolute) return std::abs(got - expected);
  return expected == 0 ? std::abs(got) : std::abs(got - expected) / std::abs(expected);
}

bool ValidationCase::passes() const { return std::isfinite(got) && error() <= tolerance; }

}  // namespace moeplan::validation
