#pragma once
// The decode-shape grouped GEMM: few token rows per expert, so the cost is streaming each active
// expert's weights once. One CTA (a warpgroup) takes one aligned block of up to 64 rows against 64
// weight rows over the whole reduction: cp.async stages 128-deep blocks of both into swizzled shared
// memory a few blocks ahead, and wgmma multiplies them. bf16 weights read bf16 rows; e4m3 weights read
// e4m3 token groups (gpu/token_group_quantize.hpp) on FP8 tensor cores.
#include <cstdint>

#include <cuda_runtime.h>

#include "gpu/expert_weights_view.hpp"

namespace moeplan::gpu {

constexpr int kStreamingBlockRows = 64;  // the alignment block this kernel expects

// The rows a streaming GEMM reads: bf16 [rows][K] for bf16 weights; for e4m3 weights, e4m3 codes
// [rows][K] with group_scales [rows][K / 128].
struct StreamingRows {
  const void* values = nullptr;
  const float* group_scales = nullptr;
};

// block_rows: the most rows any aligned block holds (at most kStreamingBlockRows, at most the tokens:
// a token sends one row to a slot), which sizes the shared memory the launch takes.

// activation[row] = silu(gate . x) * (up . x) for each aligned row, x gathered from
// hidden_states[entry / top_k] (doc 002: GEMM1 w13 with SiLU-and-mul fused in its epilogue).
void launch_streaming_gate_up(StreamingRows hidden_states, int top_k, const std::int32_t* sorted_entries,
                              const std::int32_t* block_experts, int max_blocks, int block_rows,
                              const ExpertWeightsView& weights, std::uint16_t* activation, cudaStream_t stream);

// expert_rows[row] = w2 . activation[row] (doc 002: GEMM2).
void launch_streaming_down(StreamingRows activation, const std::int32_t* sorted_entries,
                           const std::int32_t* block_experts, int max_blocks, int block_rows,
                           const ExpertWeightsView& weights, std::uint16_t* expert_rows, cudaStream_t stream);

}  // namespace moeplan::gpu
