#include "plan/disaggregation.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "cost/kv_cache.hpp"

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

// The busiest share rho of a prefill rank's time at which a prompt of `prompt` s still meets the TTFT SLO: the
// disaggregated loop's TTFT = o_req + rho / (2 (1 - rho)) P + P + H (docs/prediction.md, H the hand-off), so with
// the budget B = SLO - o_req - P - H, rho = 2B / (P + 2B); 0 when a prompt alone misses it. Without a TTFT SLO
// the queue may hold a prompt wait as long as its own run (B = P, rho = 2/3): busier ranks' queues grow without
// bound.
double prefill_share_within(const Scenario& scenario, const EngineProfile& profile, double prompt, double handoff) {
  const double budget = scenario.slo.ttft ? *scenario.slo.ttft - profile.overheads.request - prompt - handoff : prompt;
  if (budget <= 0) return 0.0;
  return 2.0 * budget / (prompt + 2.0 * budget);
}

// H: the prompt's KV from a prefill rank to the decode pool, then the decode steps its first token waits there
// (the profile's first_token_decode_steps of the decode candidate's step), as the closed loop prices it.
double handoff_seconds(const Model& model, const Layout& prefill, const Candidate& decode, const Scenario& scenario,
                       const EngineProfile& profile) {
  const DType kv_dtype = scenario.memory.kv_cache_dtype.value_or(model.kv_cache_dtype);
  return prompt_kv_transfer_seconds(model, prefill, scenario.cluster.hardware, kv_dtype,
                                    scenario.workload.input_tokens) +
         profile.first_token_decode_steps * decode.serving.decode_seconds;
}

// Whether the two pools, as split, carry the scenario's rate or keep its concurrency within the decode batch.
bool carries_offered_load(const DisaggregatedPlan& plan, const Scenario& scenario) {
  const Workload& workload = scenario.workload;
  if (workload.request_rate) return *workload.request_rate <= plan.requests_per_second;
  if (!workload.concurrency) return true;
  const std::int64_t decode_instances = plan.decode_nodes * scenario.cluster.gpus_per_node / plan.decode.layout.gpus();
  const std::int64_t decode_ranks = decode_instances * plan.decode.layout.dp;
  return *workload.concurrency <= decode_ranks * plan.decode.serving.batch;
}

// Requests per second the split carries: the fewer of what the decode pool finishes within TPOT and what the
// prefill pool starts within TTFT.
double split_requests_per_second(const DisaggregatedPlan& plan, const Scenario& scenario) {
  const auto gpus = [&](std::int64_t nodes) { return static_cast<double>(nodes * scenario.cluster.gpus_per_node); };
  const double decode = gpus(plan.decode_nodes) * plan.decode.serving.requests_per_second /
                        static_cast<double>(plan.decode.layout.gpus());
  const double prefill_ranks = gpus(plan.prefill_nodes) / static_cast<double>(plan.prefill.layout.gpus()) *
                               static_cast<double>(plan.prefill.layout.dp);
  return std::min(decode, prefill_ranks * plan.prefill_share / plan.prefill.serving.prompt_seconds);
}

}  // namespace

std::vector<DisaggregatedPlan> pair_pools(const Model& model, const std::vector<Candidate>& prefill,
                                          const std::vector<Candidate>& decode, const Scenario& scenario,
                                          const EngineProfile& profile) {
  std::vector<DisaggregatedPlan> plans;
  if (prefill.empty()) return plans;
  const Candidate& best_prefill = prefill.front();  // sorted by input tokens per GPU
  const Layout& prefill_layout = best_prefill.layout;
  const double prompt = best_prefill.serving.prompt_seconds;
  for (const Candidate& candidate : decode) {
    const double handoff = handoff_seconds(model, prefill_layout, candidate, scenario, profile);
    const double share = prefill_share_within(scenario, profile, prompt, handoff);
    if (share <= 0) continue;
    // One prefill GPU starts share / P x DP / GPUs prompts per second within the TTFT SLO.
    const double prefill_requests_per_gpu =
        share / prompt * static_cast<double>(prefill_layout.dp) / static_cast<double>(prefill_layout.gpus());
    DisaggregatedPlan plan{best_prefill, candidate};
    plan.prefill_share = share;
    plan.ttft = profile.overheads.request + queue_wait(share, prompt) + prompt + handoff;
    // Each decode GPU finishes its requests per second within the TPOT SLO; their prompts need prefill GPUs.
    const double decode_requests_per_gpu =
        candidate.serving.requests_per_second / static_cast<double>(candidate.layout.gpus());
    plan.prefill_gpus_per_decode_gpu = decode_requests_per_gpu / prefill_requests_per_gpu;
    plan.output_tokens_per_gpu = candidate.serving.output_tokens_per_gpu / (1.0 + plan.prefill_gpus_per_decode_gpu);
    if (!split_nodes(plan, scenario)) continue;
    plan.requests_per_second = split_requests_per_second(plan, scenario);
    plan.carries = carries_offered_load(plan, scenario);
    plans.push_back(std::move(plan));
  }
  // Sorted through their indices, so each plan moves once.
  std::vector<std::size_t> order(plans.size());
  for (std::size_t index = 0; index < order.size(); ++index) order[index] = index;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t left, std::size_t right) {
    if (plans[left].carries != plans[right].carries) return plans[left].carries;
    return plans[left].output_tokens_per_gpu > plans[right].output_tokens_per_gpu;
  });
  std::vector<DisaggregatedPlan> sorted;
  sorted.reserve(plans.size());
  for (const std::size_t index : order) sorted.push_back(std::move(plans[index]));
  return sorted;
}

}  // namespace moeplan
