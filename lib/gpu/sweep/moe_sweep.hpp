#pragma once
// The fused-MoE layer (lib/gpu/moe_layer) on GPU 0 over tokens per rank and E_local, with the shared
// expert fused as one more expert and unfused as a dense FFN: the model's own router, align, both grouped
// GEMMs, combine and the whole layer timed; each slice first checked path against path (the streaming
// kernel against per-expert cuBLAS, itself checked against lib/moe_reference by moeplan-moe-bench check).
#include <cstdint>
#include <vector>

#include "calib/sweep_plan.hpp"
#include "gpu/sweep/sweep_context.hpp"

namespace moeplan::gpu {

void sweep_moe_layers(const calib::MoeShape& shape, const std::vector<std::int64_t>& local_experts,
                      const std::vector<std::int64_t>& tokens, SweepContext& context);

}  // namespace moeplan::gpu
