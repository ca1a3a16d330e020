#include "moe_reference/shared_fusion.hpp"

#include <stdexcept>

namespace moeplan::moe_reference {

int shared_replica_of_token(int token, int replicas) { return token % replicas; }

Routing fuse_shared_expert(const Routing& routed, const SharedFusion& fusion) {
  if (fusion.replicas <= 0 || fusion.routed_scaling_factor <= 0) {
    throw std::invalid_argument("shared fusion: need at least one replica and a positive scaling factor");
  }
  Routing fused;
  fused.num_tokens = routed.num_tokens;
  fused.top_k = routed.top_k + 1;
  fused.selection_margins = routed.selection_margins;
  fused.expert_ids.reserve(static_cast<std::size_t>(fused.num_tokens) * fused.top_k);
  fused.weights.reserve(fused.expert_ids.capacity());
  for (int token = 0; token < routed.num_tokens; ++token) {
    const std::size_t row = static_cast<std::size_t>(token) * routed.top_k;
    for (int slot = 0; slot < routed.top_k; ++slot) {
      fused.expert_ids.push_back(routed.expert_ids[row + slot]);
      fused.weights.push_back(routed.weights[row + slot]);
    }
    fused.expert_ids.push_back(fusion.first_shared_id + shared_replica_of_token(token, fusion.replicas));
    // [doc-000]: weight 1 / routed_scaling_factor, so shared * weight * factor == shared.
    fused.weights.push_back(static_cast<float>(1.0 / fusion.routed_scaling_factor));
  }
  return fused;
}

}  // namespace moeplan::moe_reference
