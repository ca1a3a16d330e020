#include "gpu/token_group_quantize.hpp"

#include <algorithm>
#include <stdexcept>

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "gpu/cuda_check.hpp"
#include "gpu/device_attribute.hpp"
#include "spec/dtype.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kWarpsPerBlock = 8;
constexpr long kBlocksPerSm = 8;  // 64 warps: a full SM

__device__ std::uint16_t e4m3_pair(float first, float second) {
  return __nv_cvt_float2_to_fp8x2(make_float2(first, second), __NV_SATFINITE, __NV_E4M3);
}

// One group of 128 columns by one warp: each lane holds four, the warp agrees on the largest.
__device__ void quantize_group(const std::uint16_t* rows, long group, std::uint8_t* codes, float* scales) {
  const int lane = threadIdx.x % 32;
  const long first = group * moe_reference::kScaleBlock + lane * 4;
  const uint2 packed = *reinterpret_cast<const uint2*>(rows + first);
  const float2 low = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&packed.x));
  const float2 high = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&packed.y));
  float largest = fmaxf(fmaxf(fabsf(low.x), fabsf(low.y)), fmaxf(fabsf(high.x), fabsf(high.y)));
  for (int distance = 16; distance > 0; distance /= 2) {
    largest = fmaxf(largest, __shfl_xor_sync(0xFFFFFFFFu, largest, distance));
  }
  const float scale = largest > 0 ? largest / moe_reference::kE4m3Max : 1.0f;
  const std::uint32_t packed_codes = e4m3_pair(low.x / scale, low.y / scale) |
                                     static_cast<std::uint32_t>(e4m3_pair(high.x / scale, high.y / scale)) << 16;
  *reinterpret_cast<std::uint32_t*>(codes + first) = packed_codes;
  if (lane == 0) scales[group] = scale;
}

// One warp per group of 128 columns, striding over the groups of the rows in use: with few rows every
// group is in flight at once (a warp per row took 56 groups in turn for one token, 10x longer).
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    token_group_quantize_kernel(const std::uint16_t* rows, int row_count, const std::int32_t* used_rows,
                                int groups_per_row, const std::int32_t* sorted_entries, std::uint8_t* codes,
                                float* scales) {
  const long groups = static_cast<long>(used_rows != nullptr ? min(*used_rows, row_count) : row_count) * groups_per_row;
  const long warps = static_cast<long>(gridDim.x) * kWarpsPerBlock;
  for (long group = static_cast<long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32; group < groups; group += warps) {
    if (sorted_entries != nullptr && sorted_entries[group / groups_per_row] < 0) continue;
    quantize_group(rows, group, codes, scales);
  }
}

}  // namespace

void launch_token_group_quantize(const std::uint16_t* rows, int row_count, const std::int32_t* used_rows, int width,
                                 const std::int32_t* sorted_entries, std::uint8_t* codes, float* scales,
                                 cudaStream_t stream) {
  if (width % moe_reference::kScaleBlock != 0) {
    throw std::invalid_argument("token group quantize: width must be a multiple of 128");
  }
  if (row_count <= 0) return;
  // Enough warps to fill every SM, not one per group: with used_rows the rows in use are counted on the
  // device, and an aligned layout's bound (every slot's last block partly padding) can be several times them.
  const long groups = static_cast<long>(row_count) * (width / moe_reference::kScaleBlock);
  const long most_blocks = static_cast<long>(multiprocessors()) * kBlocksPerSm;
  const auto blocks = static_cast<unsigned>(std::min(divide_rounding_up(groups, kWarpsPerBlock), most_blocks));
  token_group_quantize_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(
      rows, row_count, used_rows, width / moe_reference::kScaleBlock, sorted_entries, codes, scales);
  check_launch("token_group_quantize_kernel");
}

}  // namespace moeplan::gpu
