#pragma once
// Random device data for timing (never zeros: they run faster than real data). Values come from
// a counter hash, so large weight sets are filled on the device in milliseconds.
#include <cstdint>

#include <cuda_runtime.h>

namespace moeplan::gpu {

// Uniform in [-amplitude, amplitude), rounded to bf16.
void fill_random_bf16(std::uint16_t* data, long count, float amplitude, std::uint64_t seed, cudaStream_t stream);
// Uniform in [-amplitude, amplitude).
void fill_random_float(float* data, long count, float amplitude, std::uint64_t seed, cudaStream_t stream);
// Finite e4m3 codes (NaN codes replaced by the largest finite value of the same sign).
void fill_random_e4m3(std::uint8_t* data, long count, std::uint64_t seed, cudaStream_t stream);

}  // namespace moeplan::gpu
