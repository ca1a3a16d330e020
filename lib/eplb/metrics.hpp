#pragma once
// Scoring a placement: tokens per GPU and balancedness, mean / max tokens per GPU [doc-003].
#include <cstdint>
#include <span>
#include <vector>

#include "eplb/load_log.hpp"
#include "eplb/placement.hpp"

namespace moeplan::eplb {

// weights [experts], row [slots] -> tokens each GPU receives [gpus], every replica carrying w / c
// (EPLB's model: a dispatcher spreads an expert's tokens evenly over its replicas).
std::vector<double> gpu_loads(std::span<const TokenCount> weights, const SlotRow& row, const DeploymentShape& shape);

// [doc-003]: balancedness = mean tokens per GPU / max tokens per GPU; 1 when no GPU has a token.
// loads [gpus] -> a scalar in (0, 1].
double balancedness(std::span<const double> loads);

// The largest entry of loads [gpus].
double max_load(std::span<const double> loads);

// Share of (token, expert) dispatches that must leave the token's node, tokens arriving evenly
// from all nodes and served on their own node whenever it holds a replica: weights [experts],
// row [slots] -> a scalar in [0, 1). It ignores that DeepEP sends a token once per node.
double cross_node_dispatch_share(std::span<const TokenCount> weights, const SlotRow& row, const DeploymentShape& shape);

}  // namespace moeplan::eplb
