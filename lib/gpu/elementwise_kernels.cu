#include "gpu/elementwise_kernels.hpp"

#include <stdexcept>

#include <cuda_bf16.h>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kVector = 8;  // bf16 per 16-byte access

__global__ void permute_rows_kernel(const std::uint16_t* hidden_states, int top_k, const std::int32_t* sorted_entries,
                                    int hidden, std::uint16_t* permuted) {
  const int row = blockIdx.x;
  const int entry = sorted_entries[row];
  if (entry < 0) return;
  const uint4* source = reinterpret_cast<const uint4*>(hidden_states + static_cast<long>(entry / top_k) * hidden);
  uint4* target = reinterpret_cast<uint4*>(permuted + static_cast<long>(row) * hidden);
  for (int vector = threadIdx.x; vector < hidden / kVector; vector += kThreads) target[vector] = source[vector];
}

__global__ void silu_and_mul_kernel(const std::uint16_t* gate_up, const std::int32_t* sorted_entries, int intermediate,
                                    std::uint16_t* activation) {
  const int row = blockIdx.x;
  if (sorted_entries[row] < 0) return;
  const __nv_bfloat162* gates =
      reinterpret_cast<const __nv_bfloat162*>(gate_up + static_cast<long>(row) * 2 * intermediate);
  const __nv_bfloat162* ups = gates + intermediate / 2;
  __nv_bfloat162* out = reinterpret_cast<__nv_bfloat162*>(activation + static_cast<long>(row) * intermediate);
  for (int pair = threadIdx.x; pair < intermediate / 2; pair += kThreads) {
    const float2 gate = __bfloat1622float2(gates[pair]);
    const float2 up = __bfloat1622float2(ups[pair]);
    out[pair] =
        __floats2bfloat162_rn(gate.x / (1.0f + __expf(-gate.x)) * up.x, gate.y / (1.0f + __expf(-gate.y)) * up.y);
  }
}

}  // namespace

void launch_permute_rows(const std::uint16_t* hidden_states, int top_k, const std::int32_t* sorted_entries, int rows,
                         int hidden, std::uint16_t* permuted, cudaStream_t stream) {
  if (hidden % kVector != 0) throw std::invalid_argument("permute: hidden must be a multiple of 8");
  if (rows == 0) return;
  permute_rows_kernel<<<rows, kThreads, 0, stream>>>(hidden_states, top_k, sorted_entries, hidden, permuted);
  check_launch("permute_rows_kernel");
}

void launch_silu_and_mul(const std::uint16_t* gate_up, const std::int32_t* sorted_entries, int rows, int intermediate,
                         std::uint16_t* activation, cudaStream_t stream) {
  if (intermediate % 2 != 0) throw std::invalid_argument("silu_and_mul: intermediate must be even");
  if (rows == 0) return;
  silu_and_mul_kernel<<<rows, kThreads, 0, stream>>>(gate_up, sorted_entries, intermediate, activation);
  check_launch("silu_and_mul_kernel");
}

}  // namespace moeplan::gpu
