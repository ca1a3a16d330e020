#include "gpu/transpose_kernel.hpp"

#include <stdexcept>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kThreads = 128;
constexpr int kVector = kSwapWidthMultiple;

// One CTA per row: source row (o, i) lands at target row (i, o).
__global__ void swap_leading_axes_kernel(const std::uint16_t* source, int outer, int inner, int width,
                                         std::uint16_t* target) {
  const int outer_index = blockIdx.x / inner, inner_index = blockIdx.x % inner;
  const uint4* from = reinterpret_cast<const uint4*>(source + static_cast<long>(blockIdx.x) * width);
  uint4* to = reinterpret_cast<uint4*>(target + (static_cast<long>(inner_index) * outer + outer_index) * width);
  for (int vector = threadIdx.x; vector < width / kVector; vector += kThreads) to[vector] = from[vector];
}

}  // namespace

void launch_swap_leading_axes(const std::uint16_t* source, int outer, int inner, int width, std::uint16_t* target,
                              cudaStream_t stream) {
  if (width % kVector != 0) throw std::invalid_argument("swap_leading_axes: width must be a multiple of 8");
  if (outer <= 0 || inner <= 0) return;
  swap_leading_axes_kernel<<<outer * inner, kThreads, 0, stream>>>(source, outer, inner, width, target);
  check_launch("swap_leading_axes");
}

}  // namespace moeplan::gpu
