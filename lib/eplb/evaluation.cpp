#include "eplb/evaluation.hpp"

#include <algorithm>
#include <numeric>

#include "eplb/layer_parallel.hpp"
#include "eplb/metrics.hpp"

namespace moeplan::eplb {

namespace {

constexpr std::size_t kHottestShown = 3;

// window_score of one layer; with one window its counts are the layer's, so its one balancedness
// is `balancedness` (of the layer's loads), taken as window_score takes it.
double layer_window_score(const LoadLog& log, std::int64_t layer, const SlotRow& row, const DeploymentShape& shape,
                          WindowObjective objective, double balancedness) {
  if (log.num_windows > 1) return window_score(log, layer, row, shape, objective);
  return objective == WindowObjective::worst ? std::min(1.0, balancedness) : balancedness;
}

// The kHottestShown experts with the most tokens, hottest first (the lower index on ties), and
// their replica counts in `row`.
void add_hottest(LayerEvaluation& result, std::span<const TokenCount> weights, const SlotRow& row,
                 const DeploymentShape& shape) {
  std::vector<std::int32_t> experts(weights.size());
  std::iota(experts.begin(), experts.end(), 0);
  const auto shown = std::min(kHottestShown, experts.size());
  std::partial_sort(
      experts.begin(), experts.begin() + static_cast<std::ptrdiff_t>(shown), experts.end(),
      [&](std::int32_t a, std::int32_t b) { return weights[a] > weights[b] || (weights[a] == weights[b] && a < b); });
  const auto counts = replica_counts(row, shape.experts);
  for (std::size_t rank = 0; rank < shown; ++rank) {
    result.hottest_experts.push_back(experts[rank]);
    result.hottest_replicas.push_back(counts[experts[rank]]);
  }
}

LayerEvaluation evaluate_layer(const LoadLog& log, std::int64_t layer, const SlotRow& row, const DeploymentShape& shape,
                               double lower_bound, WindowObjective objective) {
  const auto weights = log.layer_total(layer);
  const auto loads = gpu_loads(weights, row, shape);
  LayerEvaluation result;
  result.max_load = max_load(loads);
  result.balancedness = balancedness(loads);
  result.lower_bound = lower_bound;
  result.max_over_bound = result.lower_bound > 0 ? result.max_load / result.lower_bound : 1.0;
  result.cross_node_share = cross_node_dispatch_share(weights, row, shape);
  result.window_score = layer_window_score(log, layer, row, shape, objective, result.balancedness);
  add_hottest(result, weights, row, shape);
  return result;
}

}  // namespace

double PlacementEvaluation::mean_balancedness() const {
  double sum = 0;
  for (const auto& layer : layers) sum += layer.balancedness;
  return layers.empty() ? 1.0 : sum / static_cast<double>(layers.size());
}

double PlacementEvaluation::worst_max_over_bound() const {
  double worst = 1.0;
  for (const auto& layer : layers) worst = std::max(worst, layer.max_over_bound);
  return worst;
}

double PlacementEvaluation::mean_cross_node_share() const {
  double sum = 0;
  for (const auto& layer : layers) sum += layer.cross_node_share;
  return layers.empty() ? 0.0 : sum / static_cast<double>(layers.size());
}

double PlacementEvaluation::mean_cross_node_percent() const { return 100 * mean_cross_node_share(); }

std::vector<double> layer_lower_bounds(const LoadLog& log, const DeploymentShape& shape, Policy bound_policy) {
  std::vector<double> bounds(static_cast<std::size_t>(log.num_layers));
  for_each_layer(log.num_layers, [&](std::int64_t layer) {
    bounds[static_cast<std::size_t>(layer)] = policy_lower_bound(log.layer_total(layer), shape, bound_policy);
  });
  return bounds;
}

PlacementEvaluation evaluate_placement(const LoadLog& log, const Placement& placement,
                                       std::span<const double> lower_bounds, WindowObjective objective) {
  PlacementEvaluation evaluation;
  for (std::int64_t layer = 0; layer < log.num_layers; ++layer) {
    evaluation.layers.push_back(evaluate_layer(log, layer, placement.physical_to_logical[layer], placement.shape,
                                               lower_bounds[layer], objective));
  }
  return evaluation;
}

}  // namespace moeplan::eplb
