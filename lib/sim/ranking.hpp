#pragma once
// plan-deploy --simulate N: the top N aggregated plans of the static ranking, simulated over the
// scenario's whole workload and re-ranked by the throughput the simulation sees.
#include <vector>

#include "plan/search.hpp"
#include "sim/simulation.hpp"

namespace moeplan::sim {

struct SimulatedCandidate {
  Candidate candidate;
  std::size_t static_rank = 0;  // 1-based place in the static ranking
  SimulationSummary simulated;
};

// Simulates the first `top` candidates in the dispatch setting the search chose for each; a candidate
// whose KV cache cannot hold the longest request on a DP rank is left out. Best simulated output
// tokens per GPU first.
std::vector<SimulatedCandidate> rerank_by_simulation(const ServingContext& context,
                                                     const std::vector<Candidate>& ranked, std::size_t top,
                                                     const SimulationOptions& options);

}  // namespace moeplan::sim
