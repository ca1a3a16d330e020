#include "plan/disaggregation.hpp"

#include <algorithm>
#include <cmath>

namespace moeplan {

namespace {

// Splits the cluster's nodes in the ratio the rates ask for, whole instances on each side;
// false when the cluster cannot hold one instance of each pool.
bool split_nodes(DisaggregatedPlan& plan, const Scenario& scenario) {
  const std::int64_t nodes = scenario.cluster.nodes;
  const std::int64_t prefill_unit = std::max<std::int64_t>(1, plan.prefill.layout.nodes);
  const std::int64_t decode_unit = std::max<std::int64_t>(1, plan.decode.layout.nodes);
  if (prefill_unit + decode_unit > nodes) return false;
  const double share = plan.prefill_gpus_per_decode_gpu / (1.0 + plan.prefill_gpus_per_decode_gpu);
  const auto wanted = static_cast<std::int64_t>(std::llround(share * static_cast<double>(nodes)));
  const std::int64_t most = (nodes - decode_unit) / prefill_unit * prefill_unit;
  plan.prefill_nodes = std::clamp(wanted / prefill_unit * prefill_unit, prefill_unit, most);
  plan.decode_nodes = (nodes - plan.prefill_nodes) / decode_unit * decode_unit;
  return true;
}

}  // namespace

std::vector<DisaggregatedPlan> pair_pools(const std::vector<Candidate>& prefill, const std::vector<Candidate>& decode,
                                          const Scenario& scenario) {
  std::vector<DisaggregatedPlan> plans;
  if (prefill.empty()) return plans;
  const Candidate& best_prefill = prefill.front();  // sorted by input tokens per GPU
  const auto input = static_cast<double>(scenario.workload.input_tokens);
  const auto output = static_cast<double>(scenario.workload.output_tokens);
  for (const Candidate& candidate : decode) {
    DisaggregatedPlan plan{best_prefill, candidate, 0, 0, 0, 0};
    // Each decode GPU finishes D/output requests per second whose prompts need input tokens of prefill.
    const double decode_rate = candidate.serving.output_tokens_per_gpu;
    plan.prefill_gpus_per_decode_gpu = decode_rate / output * input / best_prefill.serving.input_tokens_per_gpu;
    plan.output_tokens_per_gpu = decode_rate / (1.0 + plan.prefill_gpus_per_decode_gpu);
    if (split_nodes(plan, scenario)) plans.push_back(plan);
  }
  std::stable_sort(plans.begin(), plans.end(), [](const DisaggregatedPlan& left, const DisaggregatedPlan& right) {
    return left.output_tokens_per_gpu > right.output_tokens_per_gpu;
  });
  return plans;
}

}  // namespace moeplan
