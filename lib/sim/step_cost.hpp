#pragma once
// Prices one lockstep step of the serving simulation with plan-deploy's step model: the same
// StepModel calls, step options and prefill shape estimate_serving uses, so the two agree.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "plan/serving.hpp"

namespace moeplan::sim {

// What a rank's prefill tokens add to a step. `local` is priced on the rank itself (attention, dense
// layers, the router, an unfused shared expert, its token exchange); `expert` is its tokens' grouped GEMMs
// in the EP slots, which expert parallelism spreads over every EP rank.
struct PrefillCost {
  double local = 0;
  double expert = 0;

  PrefillCost& operator+=(const PrefillCost& other) {
    local += other.local;
    expert += other.expert;
    return *this;
  }
};

// The seconds the DP ranks' prefills, one PrefillCost each, add to their lockstep step. padded: every rank
// runs the largest rank's token count (upstream vLLM V1's get_dp_padding, outside --enforce-eager), so the
// step pays the largest rank's whole prefill. Not padded (vllm-ascend 0.9 pads only decode-only graph
// steps, and a step with a prefill takes its All2AllSeq expert path): the step waits for the largest
// local part, and the experts, fed every rank's tokens, take the ranks' mean.
double lockstep_prefill_seconds(const std::vector<PrefillCost>& ranks, bool padded);

class StepPricer {
 public:
  // settings: the pool's memory settings, whose captured graph sizes pad decode-only steps.
  StepPricer(const ServingContext& context, const Layout& layout, const RoleOptions& options,
             const MemorySettings& settings);

  // The decode part of a step. vLLM's data-parallel deployment aligns every DP rank's forward pass and pads
  // it to the largest rank's token count (max_tokens_across_dp), so the MoE runs at the largest batch;
  // attention takes as long as on the rank attending to the most cached tokens. A step without prefill
  // on any DP rank replays a captured graph, padded to its size (MemorySettings::graph_batch); one with
  // a prefill runs its real batch (vllm-ascend's torchair runner pads only when no DP rank prefills).
  double decode(std::int64_t largest_batch, double most_attended_tokens, bool with_prefill) const;

  // Seconds `tokens` of a prefill of `length` tokens add to a step, at the per-token rates of the
  // prefill step estimate_serving prices (max(chunk, length) tokens of sequences of `length` on every
  // DP rank), split into the rank's own part and its expert part.
  PrefillCost prefill(std::int64_t tokens, std::int64_t length);

 private:
  StepOptions step_options(double tokens_per_rank) const;

  const ServingContext& context_;
  Layout layout_;
  RoleOptions options_;
  MemorySettings settings_;
  std::unordered_map<std::int64_t, PrefillCost> seconds_per_token_;  // by prefill length
};

}  // namespace moeplan::sim
