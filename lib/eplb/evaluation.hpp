#pragma once
// The figures eplb-solve reports for a placement, per layer and overall (the balancedness of [doc-003]).
#include <cstdint>
#include <span>
#include <vector>

#include "eplb/load_log.hpp"
#include "eplb/placement.hpp"
#include "eplb/solve.hpp"

namespace moeplan::eplb {

struct LayerEvaluation {
  double max_load = 0;                         // tokens on the busiest GPU (window counts summed)
  double balancedness = 1;                     // mean / max tokens per GPU
  double lower_bound = 0;                      // no placement of the policy's kind can have a lower max_load
  double max_over_bound = 1;                   // max_load / lower_bound (1 when both are 0)
  double cross_node_share = 0;                 // metrics.hpp cross_node_dispatch_share
  double window_score = 1;                     // solve.hpp window_score under the chosen objective
  std::vector<std::int32_t> hottest_experts;   // the 3 experts with the most tokens, hottest first
  std::vector<std::int64_t> hottest_replicas;  // their replica counts
};

struct PlacementEvaluation {
  std::vector<LayerEvaluation> layers;
  double mean_balancedness() const;  // SGLang's logged figure: the mean over layers
  double worst_max_over_bound() const;
  double mean_cross_node_share() const;    // in [0, 1)
  double mean_cross_node_percent() const;  // the same in percent: 100 x mean_cross_node_share
};

// The lower bound of every layer of `log` (counts summed over the windows): policy_lower_bound, the
// hierarchical one (groups kept on their nodes) when bound_policy is hierarchical, the global one
// otherwise -> [layers]. It depends on the loads and the shape alone, so one list serves every
// placement of the same log.
std::vector<double> layer_lower_bounds(const LoadLog& log, const DeploymentShape& shape, Policy bound_policy);

// Scores `placement` on every layer of `log` against lower_bounds [layers] (layer_lower_bounds).
PlacementEvaluation evaluate_placement(const LoadLog& log, const Placement& placement,
                                       std::span<const double> lower_bounds, WindowObjective objective);

}  // namespace moeplan::eplb
