#pragma once
// The expert shapes issue 6 sweeps: DeepSeek-V3 at several EP slices with the shared expert
// fused, Qwen3-235B-A22B and Mixtral-8x7B.
#include <string>
#include <vector>

#include "layer_case.hpp"

namespace moeplan::bench {

struct SweepModel {
  LayerCase full;                 // the model's own router over all its routed experts
  std::vector<int> local_routed;  // E_local routed slots per rank to sweep
};

std::vector<SweepModel> sweep_models();

// The layer one rank runs: its routed slots receive tokens * top_k rows as a balanced EP dispatch
// delivers them (each token to top_k distinct local slots, uniformly at random), and the fused
// shared slot every token [doc-000]. With all experts local it is the model's own router.
LayerCase rank_layer(const SweepModel& model, int local_routed, int tokens);

}  // namespace moeplan::bench
