#include "stage_cost.hpp"

#include <algorithm>

#include "moe_reference/fp8_format.hpp"
#include "spec/dtype.hpp"

namespace moeplan::bench {
namespace {

constexpr double kBf16 = 2, kFloat = 4, kIndex = 4;

DType dtype_of(gpu::WeightFormat format) { return format == gpu::WeightFormat::bf16 ? DType::bf16 : DType::fp8_e4m3; }

// One expert matrix of rows x cols as the weight inventory counts it (fp8: one float scale per 128 x 128 block).
double expert_matrix_bytes(gpu::WeightFormat format, int rows, int cols) {
  return static_cast<double>(matrix_bytes(dtype_of(format), rows, cols, BlockShape{128, 128}));
}

// A GEMM's input rows of `width`: bf16, or for e4m3 weights token groups (a float scale per 1 x 128 block).
double input_bytes(gpu::WeightFormat format, double rows, int width) {
  return rows *
         static_cast<double>(matrix_bytes(dtype_of(format), 1, width, BlockShape{1, moe_reference::kScaleBlock}));
}

StageCost quantize_cost(double rows, int width) {
  // bf16 in, e4m3 token groups out.
  return {rows * width * kBf16 + input_bytes(gpu::WeightFormat::fp8_block_scaled, rows, width), 0};
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
  const double activations = input_bytes(t.format, static_cast<double>(t.tokens), t.hidden) +
                             static_cast<double>(t.rows) * t.intermediate * kBf16;
  return {weights + activations, 2.0 * t.rows * 2.0 * t.intermediate * t.hidden};
}

StageCost down_cost(const LayerTraffic& t) {
  const double weights = t.active_experts * expert_matrix_bytes(t.format, t.hidden, t.intermediate);
  const double activations = input_bytes(t.format, static_cast<double>(t.rows), t.intermediate) +
                             static_cast<double>(t.rows) * t.hidden * kBf16;
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
