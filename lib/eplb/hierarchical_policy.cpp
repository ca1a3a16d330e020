// The hierarchical policy of [doc-001]: groups to nodes, then each node is a pool of its own experts,
// slots and GPUs. Node n owns GPUs [n * P/N, (n+1) * P/N) and slots [n * R/N, (n+1) * R/N).
#include <algorithm>
#include <numeric>
#include <vector>

#include "eplb/lower_bound.hpp"
#include "eplb/metrics.hpp"
#include "eplb/policies.hpp"
#include "eplb/pool_solver.hpp"

namespace moeplan::eplb {

namespace {

using GroupAssignment = std::vector<std::int64_t>;  // [groups]: the node of each group

std::vector<TokenCount> group_sums(std::span<const TokenCount> weights, const DeploymentShape& shape) {
  std::vector<TokenCount> sums(static_cast<std::size_t>(shape.groups), 0);
  for (std::int64_t expert = 0; expert < shape.experts; ++expert)
    sums[expert / shape.experts_per_group()] += weights[expert];
  return sums;
}

// [deepseek-eplb] step 1: G / N groups per node, heaviest group first to the lightest node with room
// (ties: the lower group index first, the lower node index). sums [groups] -> assignment [groups].
GroupAssignment assign_groups_like_eplb(const std::vector<TokenCount>& sums, std::int64_t nodes) {
  const auto per_node = static_cast<std::int64_t>(sums.size()) / nodes;
  std::vector<std::int64_t> order(sums.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return sums[a] > sums[b]; });
  std::vector<TokenCount> node_sums(static_cast<std::size_t>(nodes), 0);
  std::vector<std::int64_t> node_groups(static_cast<std::size_t>(nodes), 0);
  GroupAssignment assignment(sums.size());
  for (const auto group : order) {
    std::int64_t chosen = -1;
    for (std::int64_t node = 0; node < nodes; ++node) {
      if (node_groups[node] < per_node && (chosen < 0 || node_sums[node] < node_sums[chosen])) chosen = node;
    }
    assignment[group] = chosen;
    node_sums[chosen] += sums[group];
    ++node_groups[chosen];
  }
  return assignment;
}

// A change of the group assignment: `group` goes to `node`, and `partner` (if >= 0) comes back.
struct GroupMove {
  std::int64_t group = -1;
  std::int64_t partner = -1;
  std::int64_t node = -1;
  TokenCount larger_sum = 0;  // the heavier of the two nodes afterwards
};

// The best move or swap of one group off node `heaviest`; group == -1 when none lightens it.
GroupMove best_group_move(const std::vector<TokenCount>& sums, const GroupAssignment& assignment,
                          const DeploymentShape& shape, std::int64_t heaviest) {
  const auto capacity = (shape.slots / shape.nodes) / shape.experts_per_group();
  const auto groups = static_cast<std::int64_t>(sums.size());
  std::vector<TokenCount> node_sums(static_cast<std::size_t>(shape.nodes), 0);
  std::vector<std::int64_t> node_groups(static_cast<std::size_t>(shape.nodes), 0);
  for (std::int64_t group = 0; group < groups; ++group) {
    node_sums[assignment[group]] += sums[group];
    ++node_groups[assignment[group]];
  }
  GroupMove best{-1, -1, -1, node_sums[heaviest]};
  const auto consider = [&](std::int64_t group, std::int64_t partner, std::int64_t node) {
    const auto shift = sums[group] - (partner >= 0 ? sums[partner] : 0);
    const auto larger = std::max(node_sums[heaviest] - shift, node_sums[node] + shift);
    if (larger < best.larger_sum) best = {group, partner, node, larger};
  };
  for (std::int64_t group = 0; group < groups; ++group) {
    if (assignment[group] != heaviest) continue;
    for (std::int64_t node = 0; node < shape.nodes; ++node) {
      if (node == heaviest) continue;
      if (node_groups[heaviest] > 1 && node_groups[node] < capacity) consider(group, -1, node);
      for (std::int64_t partner = 0; partner < groups; ++partner) {
        if (assignment[partner] == node && sums[partner] < sums[group]) consider(group, partner, node);
      }
    }
  }
  return best;
}

// [moeplan-eplb-bounds]: the node can only be balanced with whole groups, so improve the assignment: move a
// group off the heaviest node, or swap it for a lighter one, while the heavier of the two nodes
// gets lighter. A node may hold any number of groups that fits its slots, but at least one.
GroupAssignment balance_group_assignment(const std::vector<TokenCount>& sums, GroupAssignment assignment,
                                         const DeploymentShape& shape) {
  for (std::size_t round = 0; round < 4 * sums.size(); ++round) {
    std::vector<TokenCount> node_sums(static_cast<std::size_t>(shape.nodes), 0);
    for (std::size_t group = 0; group < sums.size(); ++group) node_sums[assignment[group]] += sums[group];
    const auto heaviest = std::max_element(node_sums.begin(), node_sums.end()) - node_sums.begin();
    const auto move = best_group_move(sums, assignment, shape, heaviest);
    if (move.group < 0) break;
    assignment[move.group] = move.node;
    if (move.partner >= 0) assignment[move.partner] = heaviest;
  }
  return assignment;
}

// The experts of each node's groups, ascending: [nodes][experts on the node].
std::vector<std::vector<std::int32_t>> experts_by_node(const DeploymentShape& shape,
                                                       const GroupAssignment& assignment) {
  std::vector<std::vector<std::int32_t>> experts(static_cast<std::size_t>(shape.nodes));
  for (std::int64_t expert = 0; expert < shape.experts; ++expert) {
    experts[assignment[expert / shape.experts_per_group()]].push_back(static_cast<std::int32_t>(expert));
  }
  return experts;
}

std::vector<TokenCount> weights_of(std::span<const TokenCount> weights, const std::vector<std::int32_t>& experts) {
  std::vector<TokenCount> selected(experts.size());
  for (std::size_t local = 0; local < experts.size(); ++local) selected[local] = weights[experts[local]];
  return selected;
}

// Solves each node's pool: its groups' experts, its slots and its GPUs. No node can get below the
// largest node bound, so that is good enough for every node.
SlotRow place_groups(std::span<const TokenCount> weights, const DeploymentShape& shape,
                     const GroupAssignment& assignment) {
  const auto slots_per_node = shape.slots / shape.nodes;
  const auto node_experts = experts_by_node(shape, assignment);
  double good_enough = 0;
  for (const auto& experts : node_experts) {
    good_enough =
        std::max(good_enough, pool_lower_bound(weights_of(weights, experts), slots_per_node, shape.gpus_per_node()));
  }
  SlotRow row(static_cast<std::size_t>(shape.slots));
  for (std::int64_t node = 0; node < shape.nodes; ++node) {
    const auto& experts = node_experts[node];
    const auto solution = solve_pool(weights_of(weights, experts), slots_per_node, shape.gpus_per_node(), good_enough);
    for (std::int64_t slot = 0; slot < slots_per_node; ++slot) {
      row[static_cast<std::size_t>(node * slots_per_node + slot)] = experts[solution.packing.slot_experts[slot]];
    }
  }
  order_slots_within_gpus(row, shape);
  return row;
}

}  // namespace

SlotRow place_layer_hierarchical(std::span<const TokenCount> weights, const DeploymentShape& shape) {
  const auto sums = group_sums(weights, shape);
  const auto like_eplb = assign_groups_like_eplb(sums, shape.nodes);
  const auto balanced = balance_group_assignment(sums, like_eplb, shape);
  auto row = place_groups(weights, shape, like_eplb);
  if (balanced == like_eplb) return row;
  // Two candidates: EPLB's grouping keeps us never worse than EPLB; the rebalanced one is usually better.
  auto alternative = place_groups(weights, shape, balanced);
  if (max_load(gpu_loads(weights, alternative, shape)) < max_load(gpu_loads(weights, row, shape))) return alternative;
  return row;
}

}  // namespace moeplan::eplb
