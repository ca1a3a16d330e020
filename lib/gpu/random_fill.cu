#include "gpu/random_fill.hpp"

#include <cuda_bf16.h>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kThreads = 256;

// splitmix64 finaliser: a well-mixed 64-bit value per (seed, index).
__device__ std::uint64_t mix(std::uint64_t seed, long index) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ float uniform(std::uint64_t seed, long index, float amplitude) {
  const float unit = static_cast<float>(mix(seed, index) >> 40) * (1.0f / 16777216.0f);
  return (2.0f * unit - 1.0f) * amplitude;
}

__global__ void bf16_kernel(std::uint16_t* data, long count, float amplitude, std::uint64_t seed) {
  for (long index = blockIdx.x * static_cast<long>(kThreads) + threadIdx.x; index < count;
       index += static_cast<long>(gridDim.x) * kThreads) {
    data[index] = __bfloat16_as_ushort(__float2bfloat16_rn(uniform(seed, index, amplitude)));
  }
}

__global__ void float_kernel(float* data, long count, float amplitude, std::uint64_t seed) {
  for (long index = blockIdx.x * static_cast<long>(kThreads) + threadIdx.x; index < count;
       index += static_cast<long>(gridDim.x) * kThreads) {
    data[index] = uniform(seed, index, amplitude);
  }
}

__global__ void e4m3_kernel(std::uint8_t* data, long count, std::uint64_t seed) {
  for (long index = blockIdx.x * static_cast<long>(kThreads) + threadIdx.x; index < count;
       index += static_cast<long>(gridDim.x) * kThreads) {
    const std::uint8_t code = static_cast<std::uint8_t>(mix(seed, index));
    data[index] = (code & 0x7F) == 0x7F ? static_cast<std::uint8_t>(code - 1) : code;
  }
}

unsigned grid_for(long count) {
  const long blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

}  // namespace

void fill_random_bf16(std::uint16_t* data, long count, float amplitude, std::uint64_t seed, cudaStream_t stream) {
  bf16_kernel<<<grid_for(count), kThreads, 0, stream>>>(data, count, amplitude, seed);
  check_launch("fill_random_bf16");
}

void fill_random_float(float* data, long count, float amplitude, std::uint64_t seed, cudaStream_t stream) {
  float_kernel<<<grid_for(count), kThreads, 0, stream>>>(data, count, amplitude, seed);
  check_launch("fill_random_float");
}

void fill_random_e4m3(std::uint8_t* data, long count, std::uint64_t seed, cudaStream_t stream) {
  e4m3_kernel<<<grid_for(count), kThreads, 0, stream>>>(data, count, seed);
  check_launch("fill_random_e4m3");
}

}  // namespace moeplan::gpu
