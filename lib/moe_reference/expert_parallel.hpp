#pragma once
// Expert-parallel slicing: which expert slots one rank holds and how a global expert id maps to
// the rank's local weight index.
#include <cstdint>
#include <vector>

namespace moeplan::moe_reference {

struct ExpertParallelConfig {
  int routed_experts = 0;     // logical routed experts (256 for DeepSeek-V3)
  int redundant_experts = 0;  // extra physical routed slots ([doc-001]: 32 for DeepSeek-V3 prefill)
  int fused_shared = 0;       // [doc-000]: shared-expert replicas fused as experts
  int ep_size = 1;
  int ep_rank = 0;
};

// [doc-002]: num_local_experts = (num_experts - shared_slots) / ep_size + fused_shared, where
// num_experts counts every physical routed slot (routed + redundant) and the shared slots.
int local_expert_count(const ExpertParallelConfig& config);

// The global id space: physical routed slots 0 .. routed + redundant - 1, then the shared
// replicas ([doc-000] numbers the shared expert right after the routed ones).
int first_shared_id(const ExpertParallelConfig& config);
int global_expert_count(const ExpertParallelConfig& config);

// For each global id, the local slot on this rank, or -1 where another rank holds it. A rank
// holds one contiguous range of physical routed slots and every fused shared replica [doc-002].
std::vector<std::int32_t> global_to_local_map(const ExpertParallelConfig& config);

}  // namespace moeplan::moe_reference
