#include "gpu/combine_kernel.hpp"

#include <stdexcept>

#include <cuda_bf16.h>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kThreads = 128;
constexpr int kVector = 8;  // bf16 per 16-byte access

__device__ void add_scaled(float (&sum)[kVector], uint4 packed, float weight) {
  const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&packed);
#pragma unroll
  for (int pair = 0; pair < kVector / 2; ++pair) {
    const float2 values = __bfloat1622float2(pairs[pair]);
    sum[2 * pair] += weight * values.x;
    sum[2 * pair + 1] += weight * values.y;
  }
}

__global__ void __launch_bounds__(kThreads)
    combine_kernel(const std::uint16_t* expert_rows, const std::int32_t* entry_positions, const float* weights,
                   int top_k, int hidden, float output_scale, std::uint16_t* output) {
  const int token = blockIdx.x;
  for (int vector = threadIdx.x; vector < hidden / kVector; vector += kThreads) {
    float sum[kVector] = {};
    for (int slot = 0; slot < top_k; ++slot) {
      const int row = entry_positions[token * top_k + slot];
      if (row < 0) continue;
      const uint4 packed =
          *reinterpret_cast<const uint4*>(expert_rows + static_cast<long>(row) * hidden + vector * kVector);
      add_scaled(sum, packed, weights[token * top_k + slot]);
    }
    uint4 result;
    __nv_bfloat162* pairs = reinterpret_cast<__nv_bfloat162*>(&result);
#pragma unroll
    for (int pair = 0; pair < kVector / 2; ++pair) {
      pairs[pair] = __floats2bfloat162_rn(output_scale * sum[2 * pair], output_scale * sum[2 * pair + 1]);
    }
    *reinterpret_cast<uint4*>(output + static_cast<long>(token) * hidden + vector * kVector) = result;
  }
}

}  // namespace

void launch_combine(const std::uint16_t* expert_rows, const std::int32_t* entry_positions, const float* weights,
                    int num_tokens, int top_k, int hidden, float output_scale, std::uint16_t* output,
                    cudaStream_t stream) {
  if (hidden % kVector != 0) throw std::invalid_argument("combine: hidden must be a multiple of 8");
  if (num_tokens == 0) return;
  combine_kernel<<<num_tokens, kThreads, 0, stream>>>(expert_rows, entry_positions, weights, top_k, hidden,
                                                      output_scale, output);
  check_launch("combine_kernel");
}

}  // namespace moeplan::gpu
