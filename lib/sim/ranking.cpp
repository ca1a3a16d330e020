#include "sim/ranking.hpp"

#include <algorithm>

namespace moeplan::sim {

std::vector<SimulatedCandidate> rerank_by_simulation(const ServingContext& context,
                                                     const std::vector<Candidate>& ranked, std::size_t top,
                                                     const SimulationOptions& options) {
  const Workload& workload = context.scenario.workload;
  std::vector<SimulatedCandidate> simulated;
  for (std::size_t index = 0; index < std::min(top, ranked.size()); ++index) {
    const Candidate& candidate = ranked[index];
    if (candidate.memory.max_kv_tokens < workload.longest_request()) continue;
    const PoolSpec pool{candidate.layout, candidate.serving.options, 1};
    simulated.push_back({candidate, index + 1, simulate_aggregated(context, pool, options).summary});
  }
  std::stable_sort(simulated.begin(), simulated.end(),
                   [](const SimulatedCandidate& left, const SimulatedCandidate& right) {
                     return left.simulated.output_tokens_per_gpu > right.simulated.output_tokens_per_gpu;
                   });
  return simulated;
}

}  // namespace moeplan::sim
