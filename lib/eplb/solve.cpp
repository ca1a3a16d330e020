#include "eplb/solve.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "eplb/layer_parallel.hpp"
#include "eplb/lower_bound.hpp"
#include "eplb/metrics.hpp"
#include "eplb/policies.hpp"
#include "io/cancellation.hpp"

namespace moeplan::eplb {

Policy automatic_policy(const DeploymentShape& shape) {
  return shape.groups % shape.nodes == 0 ? Policy::hierarchical : Policy::global;
}

SlotRow place_layer(std::span<const TokenCount> weights, const DeploymentShape& shape, Policy policy) {
  switch (policy) {
    case Policy::hierarchical: return place_layer_hierarchical(weights, shape);
    case Policy::global: return place_layer_global(weights, shape);
    case Policy::reference_eplb: break;
  }
  return place_layer_reference_eplb(weights, shape, shape.groups % shape.nodes == 0);
}

double policy_lower_bound(std::span<const TokenCount> weights, const DeploymentShape& shape, Policy policy) {
  return policy == Policy::hierarchical ? hierarchical_lower_bound(weights, shape)
                                        : pool_lower_bound(weights, shape.slots, shape.gpus);
}

double window_score(const LoadLog& log, std::int64_t layer, const SlotRow& row, const DeploymentShape& shape,
                    WindowObjective objective) {
  double worst = 1.0;
  double sum = 0.0;
  for (std::int64_t window = 0; window < log.num_windows; ++window) {
    const double reached = balancedness(gpu_loads(log.row(window, layer), row, shape));
    worst = std::min(worst, reached);
    sum += reached;
  }
  return objective == WindowObjective::worst ? worst : sum / static_cast<double>(log.num_windows);
}

namespace {

// One layer: placed on its total over the windows, or on the window whose placement scores best.
SlotRow place_one_layer(const LoadLog& log, std::int64_t layer, const DeploymentShape& shape, Policy policy,
                        WindowObjective objective) {
  auto best = place_layer(log.layer_total(layer), shape, policy);
  if (log.num_windows == 1) return best;
  double best_score = window_score(log, layer, best, shape, objective);
  for (std::int64_t window = 0; window < log.num_windows; ++window) {
    auto candidate = place_layer(log.row(window, layer), shape, policy);
    const double score = window_score(log, layer, candidate, shape, objective);
    if (score > best_score) {
      best = std::move(candidate);
      best_score = score;
    }
  }
  return best;
}

}  // namespace

Placement place_all_layers(const LoadLog& log, const DeploymentShape& shape, Policy policy, WindowObjective objective,
                           Reporter& reporter) {
  const auto layers = static_cast<double>(log.num_layers);
  Placement placement{shape, std::vector<SlotRow>(static_cast<std::size_t>(log.num_layers))};
  reporter.progress("placing layers", 0.0);
  for_each_layer(
      log.num_layers,
      [&](std::int64_t layer) {
        stop_if_cancelled();
        placement.physical_to_logical[static_cast<std::size_t>(layer)] =
            place_one_layer(log, layer, shape, policy, objective);
      },
      [&](std::int64_t finished) { reporter.progress("placing layers", static_cast<double>(finished) / layers); });
  reporter.progress("placing layers", 1.0);
  return placement;
}

}  // namespace moeplan::eplb
