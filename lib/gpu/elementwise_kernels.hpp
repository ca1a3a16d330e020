#pragma once
// The memory-bound stages around the library GEMMs: gather rows into expert order, SiLU-and-mul,
// and FP8 block dequantisation.
#include <cstdint>

#include <cuda_runtime.h>

namespace moeplan::gpu {

// permuted[row] = hidden_states[sorted_entries[row] / top_k] for every non-padding row.
void launch_permute_rows(const std::uint16_t* hidden_states, int top_k, const std::int32_t* sorted_entries,
                         int rows, int hidden, std::uint16_t* permuted, cudaStream_t stream);

// doc 002: activation[row] = silu(gate_up[row][0 .. I)) * gate_up[row][I .. 2I), non-padding rows.
void launch_silu_and_mul(const std::uint16_t* gate_up, const std::int32_t* sorted_entries, int rows,
                         int intermediate, std::uint16_t* activation, cudaStream_t stream);

// bf16 values of an e4m3 [rows][cols] matrix with [rows / 128][cols / 128] block scales.
void launch_dequantize_fp8(const std::uint8_t* values, const float* scales, long rows, int cols,
                           std::uint16_t* output, cudaStream_t stream);

}  // namespace moeplan::gpu
