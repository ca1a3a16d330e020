#include "stage_cost.hpp"

#include <algorithm>

namespace moeplan::bench {
namespace {

constexpr double kBf16 = 2, kFloat = 4, kIndex = 4;

// One expert matrix of rows x cols: fp8 adds one float scale per 128x128 block.
double matrix_bytes(gpu::WeightFormat format, double rows, double cols) {
  if (format == gpu::WeightFormat::bf16) return rows * cols * kBf16;
  return rows * cols + (rows / 128) * (cols / 128) * kFloat;
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

StageCost gate_up_cost(const LayerTraffic& t) {
  const double weights = t.active_experts * matrix_bytes(t.format, 2.0 * t.intermediate, t.hidden);
  const double activations = static_cast<double>(t.tokens) * t.hidden * kBf16 + static_cast<double>(t.rows) * t.intermediate * kBf16;
  return {weights + activations, 2.0 * t.rows * 2.0 * t.intermediate * t.hidden};
}

StageCost down_cost(const LayerTraffic& t) {
  const double weights = t.active_experts * matrix_bytes(t.format, t.hidden, t.intermediate);
  const double activations = static_cast<double>(t.rows) * (t.intermediate + t.hidden) * kBf16;
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
