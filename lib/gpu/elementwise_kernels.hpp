#pragma once
// The memory-bound stages around the library GEMMs: gather rows into expert order and SiLU-and-mul.
#include <cstdint>

#include <cuda_runtime.h>

namespace moeplan::gpu {

// permuted[row] = hidden_states[sorted_entries[row] / top_k] for every non-padding row.
void launch_permute_rows(const std::uint16_t* hidden_states, int top_k, const std::int32_t* sorted_entries, int rows,
                         int hidden, std::uint16_t* permuted, cudaStream_t stream);

// [doc-002]: activation[row] = silu(gate_up[row][0 .. I)) * gate_up[row][I .. 2I), non-padding rows.
void launch_silu_and_mul(const std::uint16_t* gate_up, const std::int32_t* sorted_entries, int rows, int intermediate,
                         std::uint16_t* activation, cudaStream_t stream);

}  // namespace moeplan::gpu
