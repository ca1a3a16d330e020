#include "eplb/solve.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "eplb/lower_bound.hpp"
#include "eplb/metrics.hpp"
#include "eplb/policies.hpp"

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

Placement place_all_layers(const LoadLog& log, const DeploymentShape& shape, Policy policy, WindowObjective objective,
                           Reporter& reporter) {
  Placement placement{shape, {}};
  for (std::int64_t layer = 0; layer < log.num_layers; ++layer) {
    reporter.progress("placing layers", static_cast<double>(layer) / static_cast<double>(log.num_layers));
    const auto total = log.layer_total(layer);
    auto best = place_layer(total, shape, policy);
    if (log.num_windows > 1) {
      double best_score = window_score(log, layer, best, shape, objective);
      for (std::int64_t window = 0; window < log.num_windows; ++window) {
        auto candidate = place_layer(log.row(window, layer), shape, policy);
        const double score = window_score(log, layer, candidate, shape, objective);
        if (score > best_score) {
          best = std::move(candidate);
          best_score = score;
        }
      }
    }
    placement.physical_to_logical.push_back(std::move(best));
  }
  reporter.progress("placing layers", 1.0);
  return placement;
}

}  // namespace moeplan::eplb
