#pragma once
// Prefill/decode disaggregation [doc-003]: pools sized so the prefill rate feeds the decode rate.
#include <vector>

#include "plan/search.hpp"

namespace moeplan {

// Pairs each decode candidate with the best prefill candidate; best combined throughput first.
std::vector<DisaggregatedPlan> pair_pools(const std::vector<Candidate>& prefill, const std::vector<Candidate>& decode,
                                          const Scenario& scenario);

}  // namespace moeplan
