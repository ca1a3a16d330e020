#include "cost/expert_routing.hpp"

#include <algorithm>
#include <cmath>

#include "moe_reference/riding_rows.hpp"

namespace moeplan {
namespace {

constexpr int kBlockRows = static_cast<int>(kStreamingBlockRows);

}  // namespace

double reach_probability(double trials, double probability) {
  if (trials <= 0 || probability <= 0) return 0.0;
  if (probability >= 1.0) return 1.0;
  return -std::expm1(trials * std::log1p(-probability));
}

SlotExpectation expected_slot(double trials, double probability, int riding_rows) {
  const long count = std::lround(trials);
  if (count <= 0 || probability <= 0) return {};
  const auto blocks = [&](long rows) {
    return static_cast<double>(moe_reference::running_blocks_of(static_cast<int>(rows), kBlockRows, riding_rows));
  };
  if (probability >= 1.0) return {blocks(count), 1.0};
  const double log_p = std::log(probability), log_q = std::log1p(-probability);
  SlotExpectation expectation;
  expectation.reached = reach_probability(static_cast<double>(count), probability);
  // E[blocks that run] over the binomial mass, in logs so large counts stay finite. The window of 12
  // standard deviations (+2) either side of the mean leaves out a negligible share of the mass (about
  // 1e-13 at the smallest means, far less at large ones), so the sum runs over O(sqrt(n)) counts.
  const double mean = static_cast<double>(count) * probability;
  const double reach = 12.0 * std::sqrt(mean * (1.0 - probability)) + 2.0;
  const long first = std::max(1L, static_cast<long>(mean - reach));
  const long last = std::min(count, static_cast<long>(std::ceil(mean + reach)));
  const double log_all = std::lgamma(static_cast<double>(count) + 1.0);
  for (long rows = first; rows <= last; ++rows) {
    const auto k = static_cast<double>(rows);
    const double mass = std::exp(log_all - std::lgamma(k + 1.0) - std::lgamma(static_cast<double>(count - rows) + 1.0) +
                                 k * log_p + static_cast<double>(count - rows) * log_q);
    expectation.blocks += mass * blocks(rows);
  }
  return expectation;
}

ExpertStageWork expert_stage_work(ExpertPath path, double rows, double reached, double blocks, double hidden,
                                  double intermediate, double bytes_per_weight) {
  const double passes = reached;
  const double repeats = path == ExpertPath::streaming ? blocks - reached : 0.0;
  ExpertStageWork work;
  work.gate_up.repeat_bytes = repeats * 2.0 * intermediate * hidden * bytes_per_weight;
  work.down.repeat_bytes = repeats * hidden * intermediate * bytes_per_weight;
  // [doc-002]: GEMM1 w13 [2I, H] gathers each row's hidden state and writes its SiLU-and-mul activation.
  work.gate_up.flops = 2.0 * rows * 2.0 * intermediate * hidden;
  work.gate_up.bytes =
      passes * 2.0 * intermediate * hidden * bytes_per_weight + rows * (hidden + intermediate) * kActivationBytes;
  // [doc-002]: GEMM2 w2 [H, I] reads the activation and writes one hidden row per entry.
  work.down.flops = 2.0 * rows * hidden * intermediate;
  work.down.bytes =
      passes * hidden * intermediate * bytes_per_weight + rows * (intermediate + hidden) * kActivationBytes;
  return work;
}

}  // namespace moeplan
