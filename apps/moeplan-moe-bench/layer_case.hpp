#pragma once
// One MoE layer shape as the bench runs it: router, expert shapes and the rank's EP slice.
#include <string>
#include <vector>

#include "moe_reference/expert_parallel.hpp"
#include "moe_reference/routing.hpp"
#include "moe_reference/shared_fusion.hpp"

namespace moeplan::bench {

enum class RouterKind { biased_grouped, softmax };

struct LayerCase {
  std::string name;
  int hidden = 0;
  int intermediate = 0;
  RouterKind router = RouterKind::softmax;
  moe_reference::GroupedTopkConfig grouped;
  moe_reference::SoftmaxTopkConfig softmax;
  moe_reference::ExpertParallelConfig parallel;  // fused_shared = shared replicas
  double routed_scaling_factor = 1.0;
  int tokens = 0;
  bool skewed = false;  // force experts with zero, one and many tokens

  int routed_experts() const { return parallel.routed_experts; }
  int top_k() const { return router == RouterKind::biased_grouped ? grouped.top_k : softmax.top_k; }
  int columns() const { return top_k() + (parallel.fused_shared > 0 ? 1 : 0); }
  int local_experts() const { return moe_reference::local_expert_count(parallel); }
  moe_reference::SharedFusion shared() const {
    return {moe_reference::first_shared_id(parallel), parallel.fused_shared, routed_scaling_factor};
  }
};

// The shapes `check` runs: small ragged ones and the three models' real expert shapes.
std::vector<LayerCase> check_cases();

}  // namespace moeplan::bench
