#pragma once
// Prices one lockstep step of the serving simulation with plan-deploy's step model: the same
// StepModel calls, step options and prefill shape estimate_serving uses, so the two agree.
#include <cstdint>
#include <unordered_map>

#include "plan/serving.hpp"

namespace moeplan {

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

  // Seconds `tokens` of a prefill of `length` tokens add to a step, at the per-token rate of the
  // prefill step estimate_serving prices (max(chunk, length) tokens of sequences of `length`).
  double prefill(std::int64_t tokens, std::int64_t length);

 private:
  StepOptions step_options(double tokens_per_rank) const;

  const ServingContext& context_;
  Layout layout_;
  RoleOptions options_;
  MemorySettings settings_;
  std::unordered_map<std::int64_t, double> seconds_per_token_;  // by prefill length
};

}  // namespace moeplan
