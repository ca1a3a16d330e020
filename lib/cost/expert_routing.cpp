#include "cost/expert_routing.hpp"

#include <cmath>
#include <vector>

namespace moeplan {

SlotExpectation expected_slot(double trials, double probability) {
  const long count = std::lround(trials);
  if (count <= 0 || probability <= 0) return {};
  if (probability >= 1.0) return {std::ceil(static_cast<double>(count) / kStreamingBlockRows), 1.0};
  // E[ceil(X / 64)] and P(X > 0) summed over the binomial mass, in logs so large counts stay finite.
  const double log_p = std::log(probability), log_q = std::log1p(-probability);
  const double log_all = std::lgamma(static_cast<double>(count) + 1.0);
  SlotExpectation expectation;
  for (long rows = 1; rows <= count; ++rows) {
    const auto k = static_cast<double>(rows);
    const double mass = std::exp(log_all - std::lgamma(k + 1.0) - std::lgamma(static_cast<double>(count - rows) + 1.0) +
                                 k * log_p + static_cast<double>(count - rows) * log_q);
    expectation.blocks += mass * std::ceil(k / kStreamingBlockRows);
    expectation.reached += mass;
  }
  return expectation;
}

double library_bytes_per_weight_byte(double weight_element_bytes) {
  // FP8 read, bf16 written and read back by cuBLAS; bf16 weights are read as they are.
  return weight_element_bytes < 2.0 ? (1.0 + 2.0 + 2.0) / weight_element_bytes : 1.0;
}

}  // namespace moeplan
