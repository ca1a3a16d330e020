#pragma once
// [doc-004]: the rearrangement around the OTP all-to-all, as one element-wise kernel (what the cost model prices):
// target[inner][outer][:] = source[outer][inner][:] for rows of `width` bf16 values.
#include <cstdint>

#include <cuda_runtime.h>

namespace moeplan::gpu {

// bf16 values per 16-byte access: `width` must be a multiple of it.
constexpr int kSwapWidthMultiple = 8;

// Throws std::invalid_argument when `width` is not a multiple of kSwapWidthMultiple.
void launch_swap_leading_axes(const std::uint16_t* source, int outer, int inner, int width, std::uint16_t* target,
                              cudaStream_t stream);

}  // namespace moeplan::gpu
