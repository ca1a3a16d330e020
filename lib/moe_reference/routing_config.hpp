#pragma once
// Router and shared-fusion settings, plain C++17 so that CUDA sources can include them.

namespace moeplan::moe_reference {

struct GroupedTopkConfig {
  int num_experts = 0;
  int top_k = 0;
  int num_groups = 1;   // [doc-001]: n_expert_groups (8 for DeepSeek-V3)
  int topk_groups = 1;  // [doc-001]: n_limited_groups (4 for DeepSeek-V3)
  bool renormalize = true;
};

struct SoftmaxTopkConfig {
  int num_experts = 0;
  int top_k = 0;
  bool renormalize = true;  // Qwen3 norm_topk_prob; Mixtral's softmax over the top-k is the same
};

struct SharedFusion {
  int first_shared_id = 0;  // [doc-000]: expert 256 for DeepSeek-V3 (ids after the routed slots)
  int replicas = 1;         // [doc-000]: ids first_shared_id .. first_shared_id + replicas - 1
  double routed_scaling_factor = 1.0;
};

}  // namespace moeplan::moe_reference
