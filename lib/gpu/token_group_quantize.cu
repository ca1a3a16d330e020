#include "gpu/token_group_quantize.hpp"

#include <stdexcept>

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kWarpsPerBlock = 8;
constexpr float kE4m3Largest = 448.0f;  // moe::kE4m3Max

__device__ std::uint16_t e4m3_pair(float first, float second) {
  return __nv_cvt_float2_to_fp8x2(make_float2(first, second), __NV_SATFINITE, __NV_E4M3);
}

// One warp per group of 128 columns of a row: each lane holds four, the warp agrees on the largest.
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    token_group_quantize_kernel(const std::uint16_t* rows, long groups, int groups_per_row,
                                const std::int32_t* sorted_entries, TokenGroups output) {
  const long group = static_cast<long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (group >= groups) return;
  const long row = group / groups_per_row;
  if (sorted_entries != nullptr && sorted_entries[row] < 0) return;
  const int lane = threadIdx.x % 32;
  const long first = group * kTokenGroupElements + lane * 4;
  const uint2 packed = *reinterpret_cast<const uint2*>(rows + first);
  const float2 low = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&packed.x));
  const float2 high = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&packed.y));
  float largest = fmaxf(fmaxf(fabsf(low.x), fabsf(low.y)), fmaxf(fabsf(high.x), fabsf(high.y)));
  for (int distance = 16; distance > 0; distance /= 2) {
    largest = fmaxf(largest, __shfl_xor_sync(0xFFFFFFFFu, largest, distance));
  }
  const float scale = largest > 0 ? largest / kE4m3Largest : 1.0f;
  const std::uint32_t codes = e4m3_pair(low.x / scale, low.y / scale) |
                              static_cast<std::uint32_t>(e4m3_pair(high.x / scale, high.y / scale)) << 16;
  *reinterpret_cast<std::uint32_t*>(output.codes + first) = codes;
  if (lane == 0) output.scales[group] = scale;
}

}  // namespace

void launch_token_group_quantize(const std::uint16_t* rows, int row_count, int width,
                                 const std::int32_t* sorted_entries, TokenGroups output, cudaStream_t stream) {
  if (width % kTokenGroupElements != 0) {
    throw std::invalid_argument("token group quantize: width must be a multiple of 128");
  }
  if (row_count <= 0) return;
  const long groups = static_cast<long>(row_count) * (width / kTokenGroupElements);
  const auto blocks = static_cast<unsigned>((groups + kWarpsPerBlock - 1) / kWarpsPerBlock);
  token_group_quantize_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(rows, groups, width / kTokenGroupElements,
                                                                           sorted_entries, output);
  check_launch("token_group_quantize_kernel");
}

}  // namespace moeplan::gpu
