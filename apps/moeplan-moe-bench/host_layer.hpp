#pragma once
// Host inputs of one check: bf16-exact hidden states and weights, router logits, and the same
// weights in FP8 with 128x128 block scales; the CPU reference sees exactly what the GPU sees.
#include <cstdint>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/expert_weights_view.hpp"
#include "layer_case.hpp"
#include "moe_reference/reference_layer.hpp"
#include "moe_reference/routing.hpp"

namespace moeplan::bench {

struct HostLayer {
  std::vector<float> hidden_states;      // [tokens][hidden]
  std::vector<float> logits;             // [tokens][routed experts]
  std::vector<float> bias;               // [routed experts], grouped routing only
  moe_reference::ExpertWeights weights;  // the rank's local slots; shared replicas hold equal weights
};

HostLayer make_host_layer(const LayerCase& layer, std::uint64_t seed);

// The CPU router [doc-001] and shared fusion [doc-000] for the case.
moe_reference::Routing cpu_routing(const LayerCase& layer, const HostLayer& host);

struct DeviceWeights {
  gpu::DeviceBuffer<std::uint16_t> w13_bf16, w2_bf16;
  gpu::DeviceBuffer<std::uint8_t> w13_fp8, w2_fp8;
  gpu::DeviceBuffer<float> w13_scales, w2_scales;
  gpu::ExpertWeightsView view;
};

DeviceWeights upload_bf16_weights(const moe_reference::ExpertWeights& weights);
// Quantises every expert (FP8 e4m3, 128x128 blocks) and uploads it; `dequantized` receives the
// values the kernels compute with, for the reference.
DeviceWeights upload_fp8_weights(const moe_reference::ExpertWeights& weights,
                                 moe_reference::ExpertWeights& dequantized);

std::vector<std::uint16_t> to_bf16_bits(const std::vector<float>& values);
std::vector<double> bf16_bits_to_double(const std::vector<std::uint16_t>& bits);

}  // namespace moeplan::bench
