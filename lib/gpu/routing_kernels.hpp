#pragma once
// Router top-k on the device, one warp per token, with the fused shared column appended in the
// same pass [doc-000]. Semantics match lib/moe_reference/routing.cpp and lib/moe_reference/shared_fusion.cpp.
#include <cstdint>

#include <cuda_runtime.h>

#include "moe_reference/routing_config.hpp"

namespace moeplan::gpu {

constexpr int kMaxRouterExperts = 512;

struct RouterOutput {
  std::int32_t* expert_ids = nullptr;  // [tokens][top_k + (shared replicas > 0)]
  float* weights = nullptr;
};

// shared.replicas == 0: no shared column.
void launch_grouped_topk(const float* logits, const float* correction_bias, int num_tokens,
                         const moe_reference::GroupedTopkConfig& config, const moe_reference::SharedFusion& shared,
                         RouterOutput output, cudaStream_t stream);

void launch_softmax_topk(const float* logits, int num_tokens, const moe_reference::SoftmaxTopkConfig& config,
                         const moe_reference::SharedFusion& shared, RouterOutput output, cudaStream_t stream);

}  // namespace moeplan::gpu
