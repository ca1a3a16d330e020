#pragma once
// Router top-k: which experts each token goes to, and with what weight.
// Weights are renormalised but not yet multiplied by routed_scaling_factor: as in the
// forward_normal of [doc-000], the routed output is scaled once after the combine.
#include <cstdint>
#include <span>
#include <vector>

#include "moe_reference/routing_config.hpp"

namespace moeplan::moe_reference {

struct Routing {
  int num_tokens = 0;
  int top_k = 0;                         // columns per token
  std::vector<std::int32_t> expert_ids;  // [num_tokens][top_k]
  std::vector<float> weights;            // [num_tokens][top_k]
  // Per token, the smallest score gap at any keep/drop decision: a router computing in another
  // precision may choose differently only where this gap is below its rounding.
  std::vector<double> selection_margins;  // [num_tokens]
};

// [doc-001] (DeepSeek-V3 Gate.forward): sigmoid scores; the correction bias is added for selection
// only; groups ranked by the sum of their top-2 biased scores; the top topk_groups groups kept;
// top_k experts among them; weights are the unbiased scores of those experts, renormalised.
// logits: [tokens][num_experts]; correction_bias: [num_experts] (empty = no bias).
Routing route_biased_grouped_topk(std::span<const float> logits, std::span<const float> correction_bias,
                                  const GroupedTopkConfig& config);

// Softmax over all experts, the top_k largest kept (Qwen3, Mixtral, gpt-oss).
Routing route_softmax_topk(std::span<const float> logits, const SoftmaxTopkConfig& config);

}  // namespace moeplan::moe_reference
