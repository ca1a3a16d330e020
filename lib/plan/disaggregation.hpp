#pragma once
// Prefill/decode disaggregation [doc-003]: pools sized so the prefill rate feeds the decode rate.
#include <vector>

#include "plan/search.hpp"

namespace moeplan {

// Pairs each decode candidate with the best prefill candidate, the prefill pool sized from the decode pool's
// requests per second within the TPOT SLO and the prefill ranks' share within the TTFT SLO (`profile` gives the
// per-request overhead and the decode steps a first token waits; `model` the prompt's KV bytes that cross between
// the pools); those that carry the scenario's offered load first, then by combined throughput.
std::vector<DisaggregatedPlan> pair_pools(const Model& model, const std::vector<Candidate>& prefill,
                                          const std::vector<Candidate>& decode, const Scenario& scenario,
                                          const EngineProfile& profile);

}  // namespace moeplan
