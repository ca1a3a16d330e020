#include "stage_cost.hpp"

#include <algorithm>

#include "moe/fp8_format.hpp"
#include "spec/dtype.hpp"

namespace moeplan::bench {
namespace {

constexpr double kBf16 = 2, kFloat = 4, kIndex = 4;

// One expert matrix of rows x cols as the weight inventory counts it (fp8: one float scale per 128 x 128 block).
double expert_matrix_bytes(gpu::WeightFormat format, int rows, int cols) {
  const DType dtype = format == gpu::WeightFormat::bf16 ? DType::bf16 : DType::fp8_e4m3;
  return static_cast<double>(matrix_bytes(dtype, rows, cols, BlockShape{128, 128}));
}

// A GEMM's input element: bf16, or for e4m3 weights a token group's code and its share of the group's scale.
double input_element_bytes(gpu::WeightFormat format) {
  return format == gpu::WeightFormat::bf16 ? kBf16 : 1.0 + kFloat / moe::kScaleBlock;
}

StageCost quantize_cost(double rows, int width) {
  // bf16 in, e4m3 codes and a scale per 128 columns out.
  return {rows * width * (kBf16 + input_element_bytes(gpu::WeightFormat::fp8_block_scaled)), 0};
}

}  // namespace

StageCost routing_cost(const LayerTraffic& t) {
  // Logits and bias in, ids and weights out.
  return {static_cast<double>(t.tokens) * t.routed_experts * kFloat + t.routed_experts * kFloat +
              static_cast<double>(t.tokens) * t.columns * (kIndex + kFloat),
          0};
}

StageCost align_cost(const LayerTraffic& t) {
  // Ids in, positions out, sorted rows out.
  const double entries = static_cast<double>(t.tokens) * t.columns;
  return {entries * kIndex * 2 + static_cast<double>(t.rows) * kIndex, 0};
}

StageCost quantize_hidden_cost(const LayerTraffic& t) {
  return t.format == gpu::WeightFormat::bf16 ? StageCost{} : quantize_cost(t.tokens, t.hidden);
}

StageCost quantize_activation_cost(const LayerTraffic& t) {
  return t.format == gpu::WeightFormat::bf16 ? StageCost{} : quantize_cost(static_cast<double>(t.rows), t.intermediate);
}

StageCost gate_up_cost(const LayerTraffic& t) {
  const double weights = t.active_experts * expert_matrix_bytes(t.format, 2 * t.intermediate, t.hidden);
  const double activations = static_cast<double>(t.tokens) * t.hidden * input_element_bytes(t.format) +
                             static_cast<double>(t.rows) * t.intermediate * kBf16;
  return {weights + activations, 2.0 * t.rows * 2.0 * t.intermediate * t.hidden};
}

StageCost down_cost(const LayerTraffic& t) {
  const double weights = t.active_experts * expert_matrix_bytes(t.format, t.hidden, t.intermediate);
  const double activations =
      static_cast<double>(t.rows) * (t.intermediate * input_element_bytes(t.format) + t.hidden * kBf16);
  return {weights + activations, 2.0 * t.rows * t.intermediate * t.hidden};
}

StageCost combine_cost(const LayerTraffic& t) {
  return {static_cast<double>(t.rows) * t.hidden * kBf16 + static_cast<double>(t.tokens) * t.hidden * kBf16,
          2.0 * t.rows * t.hidden};
}

StageCost operator+(StageCost a, StageCost b) { return {a.bytes + b.bytes, a.flops + b.flops}; }

double roofline_seconds(const StageCost& cost, const gpu::Ceilings& ceilings) {
  return std::max(cost.bytes / ceilings.copy_bytes_per_second, cost.flops / ceilings.bf16_gemm_flops_per_second);
}

std::string bound_of(const StageCost& cost, const gpu::Ceilings& ceilings) {
  return cost.bytes / ceilings.copy_bytes_per_second >= cost.flops / ceilings.bf16_gemm_flops_per_second ? "memory"
                                                                                                          : "compute";
}

}  // namespace moeplan::bench
