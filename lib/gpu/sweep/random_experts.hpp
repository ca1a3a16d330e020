#pragma once
// Random expert weights for timing (never zeros): bf16 of amplitude sqrt(3 / fan_in), or finite e4m3
// codes with 128 x 128 block scales, in the w13 / w2 layout of [doc-002].
#include <cstdint>

#include <cuda_runtime.h>

#include "gpu/device_buffer.hpp"
#include "gpu/expert_weights_view.hpp"

namespace moeplan::gpu {

struct RandomExperts {
  DeviceBuffer<std::uint8_t> w13, w2;
  DeviceBuffer<float> w13_scales, w2_scales;
  ExpertWeightsView view;
};

RandomExperts random_experts(int experts, int hidden, int intermediate, WeightFormat format, std::uint64_t seed,
                             cudaStream_t stream);

}  // namespace moeplan::gpu
