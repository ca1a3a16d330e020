#pragma once
// Helpers shared by the eplb tests: random load rows and placement invariants.
#include <cmath>
#include <cstdint>
#include <vector>

#include "eplb/deployment_shape.hpp"
#include "eplb/load_log.hpp"
#include "eplb/placement.hpp"
#include "eplb/synthetic_loads.hpp"

namespace moeplan::eplb::testing {

// A row of `experts` counts, log-normally skewed (sigma), from a fixed seed.
inline std::vector<TokenCount> random_weights(std::int64_t experts, double sigma, std::uint64_t seed, TokenCount scale = 1000) {
  std::uint64_t state = seed;
  std::vector<TokenCount> weights(static_cast<std::size_t>(experts));
  for (auto& weight : weights) weight = static_cast<TokenCount>(static_cast<double>(scale) * std::exp(sigma * next_normal(state)));
  return weights;
}

// Groups per node hold every replica of their experts: no expert appears on two nodes, and all
// experts of a group share one node.
inline bool groups_stay_on_their_nodes(const SlotRow& row, const DeploymentShape& shape) {
  std::vector<std::int64_t> group_node(static_cast<std::size_t>(shape.groups), -1);
  for (std::int64_t slot = 0; slot < shape.slots; ++slot) {
    const auto node = shape.node_of_gpu(shape.gpu_of_slot(slot));
    auto& seen = group_node[row[slot] / shape.experts_per_group()];
    if (seen >= 0 && seen != node) return false;
    seen = node;
  }
  return true;
}

}  // namespace moeplan::eplb::testing
