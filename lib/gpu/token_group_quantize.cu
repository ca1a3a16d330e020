#include "gpu/token_group_quantize.hpp"

#include <stdexcept>

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "gpu/cuda_check.hpp"
#include "spec/dtype.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kWarpsPerBlock = 8;

__device__ std::uint16_t e4m3_pair(float first, float second) {
  return __nv_cvt_float2_to_fp8x2(make_float2(first, second), __NV_SATFINITE, __NV_E4M3);
}

// One warp per group of 128 columns of a row: each lane holds four, the warp agrees on the largest.
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    token_group_quantize_kernel(const std::uint16_t* rows, long groups, int groups_per_row,
                                const std::int32_t* sorted_entries, std::uint8_t* codes, float* scales) {
  const long group = static_cast<long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (group >= groups) return;
  const long row = group / groups_per_row;
  if (sorted_entries != nullptr && sorted_entries[row] < 0) return;
  const int lane = threadIdx.x % 32;
  const long first = group * moe::kScaleBlock + lane * 4;
  const uint2 packed = *reinterpret_cast<const uint2*>(rows + first);
  const float2 low = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&packed.x));
  const float2 high = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&packed.y));
  float largest = fmaxf(fmaxf(fabsf(low.x), fabsf(low.y)), fmaxf(fabsf(high.x), fabsf(high.y)));
  for (int distance = 16; distance > 0; distance /= 2) {
    largest = fmaxf(largest, __shfl_xor_sync(0xFFFFFFFFu, largest, distance));
  }
  const float scale = largest > 0 ? largest / moe::kE4m3Max : 1.0f;
  const std::uint32_t packed_codes = e4m3_pair(low.x / scale, low.y / scale) |
                                     static_cast<std::uint32_t>(e4m3_pair(high.x / scale, high.y / scale)) << 16;
  *reinterpret_cast<std::uint32_t*>(codes + first) = packed_codes;
  if (lane == 0) scales[group] = scale;
}

}  // namespace

void launch_token_group_quantize(const std::uint16_t* rows, int row_count, int width,
                                 const std::int32_t* sorted_entries, std::uint8_t* codes, float* scales,
                                 cudaStream_t stream) {
  if (width % moe::kScaleBlock != 0) {
    throw std::invalid_argument("token group quantize: width must be a multiple of 128");
  }
  if (row_count <= 0) return;
  const long groups = static_cast<long>(row_count) * (width / moe::kScaleBlock);
  const auto blocks = static_cast<unsigned>(divide_rounding_up(groups, kWarpsPerBlock));
  token_group_quantize_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(rows, groups, width / moe::kScaleBlock,
                                                                           sorted_entries, codes, scales);
  check_launch("token_group_quantize_kernel");
}

}  // namespace moeplan::gpu
