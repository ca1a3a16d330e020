#pragma once
// doc 004's rearrangement around the OTP all-to-all, as one element-wise kernel (what the cost model prices):
// target[inner][outer][:] = source[outer][inner][:] for rows of `width` bf16 values.
#include <cstdint>

#include <cuda_runtime.h>

namespace moeplan::gpu {

// `width` must be a multiple of 8 (16-byte accesses); throws std::invalid_argument otherwise.
void launch_swap_leading_axes(const std::uint16_t* source, int outer, int inner, int width, std::uint16_t* target,
                              cudaStream_t stream);

}  // namespace moeplan::gpu
