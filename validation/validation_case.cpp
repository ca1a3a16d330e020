#include "validation_case.hpp"

#include <cmath>

namespace moeplan::validation {

double ValidationCase::error() const {
  if (absolute) return std::abs(got - expected);
  return expected == 0 ? std::abs(got) : std::abs(got - expected) / std::abs(expected);
}

ValidationCase relative_case(std::string id, std::string source, std::string unit, double expected, double got,
                             double tolerance, std::string note) {
  return {std::move(id), std::move(source), std::move(unit), expected, got, tolerance, false, std::move(note), ""};
}

ValidationCase absolute_case(std::string id, std::string source, std::string unit, double expected, double got,
                             double tolerance, std::string note) {
  return {std::move(id), std::move(source), std::move(unit), expected, got, tolerance, true, std::move(note), ""};
}

ValidationCase with_known_gap(ValidationCase entry, std::string reason) {
  entry.known_gap = std::move(reason);
  return entry;
}

bool ValidationCase::passes() const { return std::isfinite(got) && error() <= tolerance; }

}  // namespace moeplan::validation
