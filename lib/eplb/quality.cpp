#include "eplb/quality.hpp"

#include <algorithm>

#include "eplb/metrics.hpp"
#include "eplb/solve.hpp"
#include "eplb/synthetic_loads.hpp"

namespace moeplan::eplb {

LoadLog skewed_loads(const SkewedCase& skewed, std::int64_t layers, std::uint64_t seed) {
  SyntheticLoadShape loads;
  loads.layers = layers;
  loads.experts = skewed.shape.experts;
  loads.groups = skewed.shape.groups;
  loads.dispatches_per_layer = std::int64_t{65536} * 8;  // 65536 tokens, each routed to 8 experts
  loads.expert_sigma = skewed.expert_sigma;
  loads.group_sigma = skewed.group_sigma;
  loads.seed = seed;
  return synthetic_load_log(loads);
}

std::vector<SkewedCase> quality_cases() {
  return {
      {"EP32 prefill, 4x8, hier, sigma 0.6", {4, 32, 288, 256, 8}, 0.6},
      {"EP32 prefill, 4x8, hier, sigma 1.0", {4, 32, 288, 256, 8}, 1.0},
      {"EP32 prefill, 4x8, hier, sigma 1.5", {4, 32, 288, 256, 8}, 1.5},
      {"EP32 prefill, 4x8, hier, hot groups", {4, 32, 288, 256, 8}, 0.8, 0.6},
      {"EP32, 2x16, hier, sigma 1.0", {2, 32, 288, 256, 8}, 1.0},
      {"EP8, 1x8, R=288, sigma 1.0", {1, 8, 288, 256, 8}, 1.0},
      {"EP32, 4x8, global, sigma 1.0", {4, 32, 288, 256, 1}, 1.0},
      {"EP144 decode, 18x8, S=2, sigma 0.6", {18, 144, 288, 256, 8}, 0.6},
      {"EP144 decode, 18x8, S=2, sigma 1.0", {18, 144, 288, 256, 8}, 1.0},
      {"EP144 decode, 18x8, S=2, sigma 1.5", {18, 144, 288, 256, 8}, 1.5},
      {"EP320 decode, S=1, sigma 1.0", {40, 320, 320, 256, 8}, 1.0},
      {"Kimi-K2 EP320, S=2, sigma 1.0", {40, 320, 640, 384, 1}, 1.0},
      {"Kimi-K2 EP32, 4x8, S=13, sigma 1.0", {4, 32, 416, 384, 1}, 1.0},
  };
}

void QualityTotals::add(const QualityTotals& other) {
  layers += other.layers;
  worse_layers += other.worse_layers;
  gapped_layers += other.gapped_layers;
  eplb_gap_sum += other.eplb_gap_sum;
  ours_gap_sum += other.ours_gap_sum;
  closed_sum += other.closed_sum;
}

double QualityTotals::mean_closed() const {
  return gapped_layers > 0 ? closed_sum / static_cast<double>(gapped_layers) : 0.0;
}

QualityTotals score_against_eplb(const SkewedCase& skewed) {
  const LoadLog log = skewed_loads(skewed, 58, 11);
  const Policy policy = automatic_policy(skewed.shape);
  const DeploymentShape& shape = skewed.shape;
  QualityTotals totals;
  for (std::int64_t layer = 0; layer < log.num_layers; ++layer) {
    const auto weights = log.row(0, layer);
    const double ours = max_load(gpu_loads(weights, place_layer(weights, shape, policy), shape));
    const double eplb = max_load(gpu_loads(weights, place_layer(weights, shape, Policy::reference_eplb), shape));
    const double bound = policy_lower_bound(weights, shape, policy);
    ++totals.layers;
    if (ours > eplb * (1 + 1e-12)) ++totals.worse_layers;
    if (eplb > bound * 1.01) {
      ++totals.gapped_layers;
      totals.eplb_gap_sum += eplb / bound - 1;
      totals.ours_gap_sum += ours / bound - 1;
      totals.closed_sum += (eplb - ours) / (eplb - bound);
    }
  }
  return totals;
}

}  // namespace moeplan::eplb
