#include "host_layer.hpp"

#include <cmath>
#include <future>

#include "moe_reference/bfloat16.hpp"
#include "moe_reference/fp8.hpp"
#include "moe_reference/shared_fusion.hpp"

namespace moeplan::bench {
namespace {

// splitmix64: fast, seedable, and good enough for test data.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  double uniform(double amplitude) {  // in [-amplitude, amplitude)
    return (static_cast<double>(next() >> 11) * 0x1.0p-53 * 2.0 - 1.0) * amplitude;
  }

 private:
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

void fill_bf16(std::vector<float>& values, std::size_t count, double amplitude, Random& random) {
  values.resize(count);
  for (float& value : values) value = moe_reference::round_to_bf16(static_cast<float>(random.uniform(amplitude)));
}

// Expert 0 takes every token, expert 1 only token 0, the last three none (lowest logits).
void skew_logits(std::vector<float>& logits, int tokens, int experts) {
  for (int token = 0; token < tokens; ++token) {
    float* row = logits.data() + static_cast<std::size_t>(token) * experts;
    row[0] += 6.0f;
    row[1] = token == 0 ? 8.0f : -20.0f;
    for (int expert = experts - 3; expert < experts; ++expert) row[expert] = -20.0f;
  }
}

// Weights of amplitude sqrt(3 / fan_in) keep each product's output near unit scale.
void fill_weights(moe_reference::ExpertWeights& weights, int routed_local, int shared_replicas, Random& random) {
  const std::size_t w13_size = static_cast<std::size_t>(2) * weights.intermediate * weights.hidden;
  const std::size_t w2_size = static_cast<std::size_t>(weights.hidden) * weights.intermediate;
  const int distinct = routed_local + (shared_replicas > 0 ? 1 : 0);
  fill_bf16(weights.w13, w13_size * distinct, std::sqrt(3.0 / weights.hidden), random);
  fill_bf16(weights.w2, w2_size * distinct, std::sqrt(3.0 / weights.intermediate), random);
  for (int copy = 1; copy < shared_replicas; ++copy) {  // replicas repeat the shared expert
    weights.w13.insert(weights.w13.end(), weights.w13.begin() + static_cast<std::ptrdiff_t>(w13_size * routed_local),
                       weights.w13.begin() + static_cast<std::ptrdiff_t>(w13_size * (routed_local + 1)));
    weights.w2.insert(weights.w2.end(), weights.w2.begin() + static_cast<std::ptrdiff_t>(w2_size * routed_local),
                      weights.w2.begin() + static_cast<std::ptrdiff_t>(w2_size * (routed_local + 1)));
  }
}

struct QuantizedStack {
  std::vector<std::uint8_t> values;
  std::vector<float> scales;
  std::vector<float> dequantized;
};

// Each expert's matrix quantised on its own thread.
QuantizedStack quantize_stack(const std::vector<float>& stacked, int experts, int rows, int cols) {
  const std::size_t matrix = static_cast<std::size_t>(rows) * cols;
  std::vector<std::future<moe_reference::BlockScaledMatrix>> jobs;
  for (int expert = 0; expert < experts; ++expert) {
    jobs.push_back(std::async(std::launch::async, [&, expert] {
      return moe_reference::quantize_block_scaled(std::span<const float>(stacked).subspan(expert * matrix, matrix),
                                                  rows, cols);
    }));
  }
  QuantizedStack result;
  for (auto& job : jobs) {
    const moe_reference::BlockScaledMatrix quantized = job.get();
    const std::vector<float> restored = moe_reference::dequantize(quantized);
    result.values.insert(result.values.end(), quantized.values.begin(), quantized.values.end());
    result.scales.insert(result.scales.end(), quantized.scales.begin(), quantized.scales.end());
    result.dequantized.insert(result.dequantized.end(), restored.begin(), restored.end());
  }
  return result;
}

}  // namespace

HostLayer make_host_layer(const LayerCase& layer, std::uint64_t seed) {
  Random random(seed);
  HostLayer host;
  fill_bf16(host.hidden_states, static_cast<std::size_t>(layer.tokens) * layer.hidden, 1.0, random);
  host.logits.resize(static_cast<std::size_t>(layer.tokens) * layer.routed_experts());
  for (float& logit : host.logits) logit = static_cast<float>(random.uniform(2.0));
  if (layer.skewed) skew_logits(host.logits, layer.tokens, layer.routed_experts());
  if (layer.router == RouterKind::biased_grouped) {
    host.bias.resize(static_cast<std::size_t>(layer.routed_experts()));
    for (float& value : host.bias) value = static_cast<float>(random.uniform(0.05));
  }
  host.weights.num_experts = layer.local_experts();
  host.weights.hidden = layer.hidden;
  host.weights.intermediate = layer.intermediate;
  fill_weights(host.weights, layer.local_experts() - layer.parallel.fused_shared, layer.parallel.fused_shared, random);
  return host;
}

moe_reference::Routing cpu_routing(const LayerCase& layer, const HostLayer& host) {
  const moe_reference::Routing routed =
      layer.router == RouterKind::biased_grouped
          ? moe_reference::route_biased_grouped_topk(host.logits, host.bias, layer.grouped)
          : moe_reference::route_softmax_topk(host.logits, layer.softmax);
  return layer.parallel.fused_shared > 0 ? moe_reference::fuse_shared_expert(routed, layer.shared()) : routed;
}

std::vector<std::uint16_t> to_bf16_bits(const std::vector<float>& values) {
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t index = 0; index < values.size(); ++index) bits[index] = moe_reference::bf16_bits(values[index]);
  return bits;
}

std::vector<double> bf16_bits_to_double(const std::vector<std::uint16_t>& bits) {
  std::vector<double> values(bits.size());
  for (std::size_t index = 0; index < bits.size(); ++index) values[index] = moe_reference::bf16_value(bits[index]);
  return values;
}

DeviceWeights upload_bf16_weights(const moe_reference::ExpertWeights& weights) {
  DeviceWeights device;
  device.w13_bf16 = gpu::DeviceBuffer<std::uint16_t>(std::span<const std::uint16_t>(to_bf16_bits(weights.w13)));
  device.w2_bf16 = gpu::DeviceBuffer<std::uint16_t>(std::span<const std::uint16_t>(to_bf16_bits(weights.w2)));
  device.view = {gpu::WeightFormat::bf16, weights.num_experts,
                 weights.hidden,          weights.intermediate,
                 device.w13_bf16.data(),  nullptr,
                 device.w2_bf16.data(),   nullptr};
  return device;
}

DeviceWeights upload_fp8_weights(const moe_reference::ExpertWeights& weights,
                                 moe_reference::ExpertWeights& dequantized) {
  const QuantizedStack w13 = quantize_stack(weights.w13, weights.num_experts, 2 * weights.intermediate, weights.hidden);
  const QuantizedStack w2 = quantize_stack(weights.w2, weights.num_experts, weights.hidden, weights.intermediate);
  dequantized = {weights.num_experts, weights.hidden, weights.intermediate, w13.dequantized, w2.dequantized};
  DeviceWeights device;
  device.w13_fp8 = gpu::DeviceBuffer<std::uint8_t>(std::span<const std::uint8_t>(w13.values));
  device.w2_fp8 = gpu::DeviceBuffer<std::uint8_t>(std::span<const std::uint8_t>(w2.values));
  device.w13_scales = gpu::DeviceBuffer<float>(std::span<const float>(w13.scales));
  device.w2_scales = gpu::DeviceBuffer<float>(std::span<const float>(w2.scales));
  device.view = {gpu::WeightFormat::fp8_block_scaled,
                 weights.num_experts,
                 weights.hidden,
                 weights.intermediate,
                 device.w13_fp8.data(),
                 device.w13_scales.data(),
                 device.w2_fp8.data(),
                 device.w2_scales.data()};
  return device;
}

}  // namespace moeplan::bench
