#pragma once
// The combine of [doc-002]: expert rows back to token order, weighted by the router, in one pass.
#include <cstdint>

#include <cuda_runtime.h>

namespace moeplan::gpu {

// output[t] = output_scale * sum_j weights[t][j] * expert_rows[entry_positions[t][j]]; entries at
// -1 (held by other ranks) are skipped. [doc-000]: output_scale is routed_scaling_factor.
void launch_combine(const std::uint16_t* expert_rows, const std::int32_t* entry_positions, const float* weights,
                    int num_tokens, int top_k, int hidden, float output_scale, std::uint16_t* output,
                    cudaStream_t stream);

}  // namespace moeplan::gpu
