#pragma once
// The entry point of eplb-solve: a placement for every MoE layer of a load log.
#include <span>

#include "eplb/deployment_shape.hpp"
#include "eplb/load_log.hpp"
#include "eplb/placement.hpp"
#include "io/reporter.hpp"

namespace moeplan::eplb {

enum class Policy { hierarchical, global, reference_eplb };

// How a placement is scored over several time windows.
enum class WindowObjective { worst, mean };

// [doc-001]: hierarchical "when the number of server nodes divides the number of expert groups",
// global otherwise.
Policy automatic_policy(const DeploymentShape& shape);

// One layer, one policy: weights [experts] -> row [slots]. reference_eplb is DeepSeek's own
// algorithm (hierarchical when the groups divide by the nodes, as eplb.py decides).
SlotRow place_layer(std::span<const TokenCount> weights, const DeploymentShape& shape, Policy policy);

// The lower bound a placement under `policy` is measured against: hierarchical_lower_bound when
// groups stay on nodes, pool_lower_bound otherwise. weights [experts] -> a scalar.
double policy_lower_bound(std::span<const TokenCount> weights, const DeploymentShape& shape, Policy policy);

// The balancedness a row reaches in each window of one layer, scored by `objective`: the least
// (worst) or the mean over windows. row [slots] -> a scalar in (0, 1].
double window_score(const LoadLog& log, std::int64_t layer, const SlotRow& row, const DeploymentShape& shape,
                    WindowObjective objective);

// Every layer of `log`. With one window, the layer's counts decide. With several, the placements
// for the summed counts and for each window are candidates, and the one with the best
// window_score wins (the summed counts on ties), so the placement survives a shifting load.
Placement place_all_layers(const LoadLog& log, const DeploymentShape& shape, Policy policy, WindowObjective objective,
                           Reporter& reporter);

}  // namespace moeplan::eplb
