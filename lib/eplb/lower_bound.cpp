#include "eplb/lower_bound.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

#include "eplb/replication.hpp"

namespace moeplan::eplb {

namespace {

// weights sorted descending [n] -> the pigeonhole term of pool_lower_bound.
double slot_pigeonhole(std::span<const TokenCount> sorted, std::int64_t slots, std::int64_t gpus) {
  const auto count = static_cast<std::int64_t>(sorted.size());
  const auto spare = slots - count;
  double bound = 0;
  for (std::int64_t sharing = 1; sharing < slots / gpus; ++sharing) {
    const auto last_rank = spare + sharing * gpus + 1;  // 1-based rank of the lightest term
    if (last_rank > count) break;
    TokenCount sum = 0;
    for (auto rank = last_rank - sharing; rank <= last_rank; ++rank) sum += sorted[rank - 1];
    bound = std::max(bound, static_cast<double>(sum));
  }
  return bound;
}

// weights sorted descending [n], least_largest [slots - n + 1] as least_largest_replica_by_slots
// gives it -> the heaviest-with-lightest term of pool_lower_bound (its proof is there).
double heaviest_with_lightest(std::span<const TokenCount> sorted, const std::vector<ReplicaLoad>& least_largest,
                              std::int64_t slots_per_gpu) {
  const auto count = static_cast<std::int64_t>(sorted.size());
  const auto partners = static_cast<double>(slots_per_gpu - 1);
  const double with_all_slots = least_largest.back().value();
  double bound = std::numeric_limits<double>::infinity();
  // m: the replicas of the expert holding the lightest replica; the others then share slots - m + 1.
  for (std::int64_t replicas = 1; replicas <= static_cast<std::int64_t>(least_largest.size()); ++replicas) {
    const auto& largest = least_largest[least_largest.size() - static_cast<std::size_t>(replicas)];
    const auto at_least_largest = [&](TokenCount weight) {
      return !heavier_replica(largest.tokens, largest.replicas, weight, 1);
    };
    // Experts below that largest replica: the lightest of them gives the least sum.
    if (!at_least_largest(sorted.back())) {
      bound = std::min(bound,
                       largest.value() + partners * static_cast<double>(sorted.back()) / static_cast<double>(replicas));
    }
    // Experts at or above it: the heaviest replica is only known to be at least with_all_slots.
    const auto above = std::partition_point(sorted.begin(), sorted.end(), at_least_largest) - sorted.begin();
    if (above > 0) {
      bound = std::min(
          bound, with_all_slots + partners * static_cast<double>(sorted[above - 1]) / static_cast<double>(replicas));
    }
  }
  return count > 0 ? bound : 0.0;
}

// weights sorted descending [n] -> pool_lower_bound's largest term.
double pool_lower_bound_sorted(std::span<const TokenCount> sorted, std::int64_t slots, std::int64_t gpus) {
  const auto total = std::accumulate(sorted.begin(), sorted.end(), TokenCount{0});
  const auto least_largest = least_largest_replica_by_slots_sorted(sorted, slots);
  return std::max({static_cast<double>(total) / static_cast<double>(gpus), least_largest.back().value(),
                   slot_pigeonhole(sorted, slots, gpus), heaviest_with_lightest(sorted, least_largest, slots / gpus)});
}

// Each group's weights sorted heaviest first: weights [experts] -> [groups][experts per group].
std::vector<std::vector<TokenCount>> sorted_group_weights(std::span<const TokenCount> weights,
                                                          const DeploymentShape& shape) {
  std::vector<std::vector<TokenCount>> groups;
  for (std::int64_t group = 0; group < shape.groups; ++group) {
    const auto first = weights.begin() + group * shape.experts_per_group();
    groups.emplace_back(first, first + shape.experts_per_group());
    std::sort(groups.back().begin(), groups.back().end(), std::greater<>());
  }
  return groups;
}

// Searches group-to-node assignments depth first, heaviest group first, memoising each node's
// bound by its set of groups, and pruning any partial assignment already at the best found.
class GroupAssignmentSearch {
 public:
  GroupAssignmentSearch(std::span<const TokenCount> weights, const DeploymentShape& shape)
      : shape_(shape), sorted_groups_(sorted_group_weights(weights, shape)) {
    std::vector<TokenCount> sums(static_cast<std::size_t>(shape.groups), 0);
    for (std::int64_t expert = 0; expert < shape.experts; ++expert)
      sums[expert / shape.experts_per_group()] += weights[expert];
    order_.resize(sums.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return sums[a] > sums[b]; });
    node_groups_.assign(static_cast<std::size_t>(shape.nodes), 0);
    node_bounds_.assign(static_cast<std::size_t>(shape.nodes), 0.0);
    memo_.assign(std::size_t{1} << shape.groups, std::numeric_limits<double>::quiet_NaN());
  }

  double run() {
    assign(0, 0);
    return best_;
  }

  // pool_lower_bound of all the experts over all slots and GPUs, from the groups' sorted weights.
  double global_bound() {
    merge_node_weights((1U << shape_.groups) - 1);
    return pool_lower_bound_sorted(node_weights_, shape_.slots, shape_.gpus);
  }

 private:
  // The weights of the groups in `groups` (a bit set), heaviest first, merged into node_weights_.
  void merge_node_weights(std::uint32_t groups) {
    node_weights_.clear();
    for (std::int64_t group = 0; group < shape_.groups; ++group) {
      if (((groups >> group) & 1U) == 0) continue;
      const auto& sorted = sorted_groups_[group];
      merged_.resize(node_weights_.size() + sorted.size());
      std::merge(node_weights_.begin(), node_weights_.end(), sorted.begin(), sorted.end(), merged_.begin(),
                 std::greater<>());
      node_weights_.swap(merged_);
    }
  }

  double node_bound(std::uint32_t groups) {
    if (groups == 0) return 0;
    auto& bound = memo_[groups];
    if (std::isnan(bound)) {
      merge_node_weights(groups);
      bound = pool_lower_bound_sorted(node_weights_, shape_.slots / shape_.nodes, shape_.gpus_per_node());
    }
    return bound;
  }

  // Places order_[index] on each used node with room, then on one fresh node (node labels are
  // interchangeable, so a second fresh node would only repeat the search). node_bounds_ holds
  // node_bound of every node's groups.
  void assign(std::size_t index, std::int64_t used_nodes) {
    double partial = 0;
    for (std::int64_t node = 0; node < used_nodes; ++node) partial = std::max(partial, node_bounds_[node]);
    if (partial >= best_) return;
    // Every node must fill its slots with its own experts, so it needs at least one group.
    const auto groups_left = static_cast<std::int64_t>(order_.size() - index);
    if (groups_left < shape_.nodes - used_nodes) return;
    if (index == order_.size()) {
      best_ = partial;
      return;
    }
    const auto capacity_groups = (shape_.slots / shape_.nodes) / shape_.experts_per_group();
    const auto open_nodes = std::min(used_nodes + 1, shape_.nodes);
    for (std::int64_t node = 0; node < open_nodes; ++node) {
      if (std::popcount(node_groups_[node]) >= capacity_groups) continue;
      const double before = node_bounds_[node];
      node_groups_[node] |= 1U << order_[index];
      node_bounds_[node] = node_bound(node_groups_[node]);
      assign(index + 1, std::max(used_nodes, node + 1));
      node_groups_[node] &= ~(1U << order_[index]);
      node_bounds_[node] = before;
    }
  }

  const DeploymentShape& shape_;
  std::vector<std::vector<TokenCount>> sorted_groups_;  // [groups][experts per group], heaviest first
  std::vector<TokenCount> node_weights_;                // scratch: one node's weights, heaviest first
  std::vector<TokenCount> merged_;                      // scratch for merging into node_weights_
  std::vector<int> order_;
  std::vector<std::uint32_t> node_groups_;  // [nodes]: each node's groups, a bit set
  std::vector<double> node_bounds_;         // [nodes]: node_bound of node_groups_
  std::vector<double> memo_;                // [2^groups]: node_bound by set of groups, NaN until computed
  double best_ = std::numeric_limits<double>::infinity();
};

constexpr std::int64_t kMaxEnumeratedGroups = 16;

}  // namespace

double pool_lower_bound(std::span<const TokenCount> weights, std::int64_t slots, std::int64_t gpus) {
  std::vector<TokenCount> sorted(weights.begin(), weights.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  return pool_lower_bound_sorted(sorted, slots, gpus);
}

double hierarchical_lower_bound(std::span<const TokenCount> weights, const DeploymentShape& shape) {
  if (shape.groups <= kMaxEnumeratedGroups) {
    GroupAssignmentSearch search(weights, shape);
    const double global = search.global_bound();
    return std::max(global, search.run());
  }
  const double global = pool_lower_bound(weights, shape.slots, shape.gpus);
  double single_group = 0;
  for (std::int64_t group = 0; group < shape.groups; ++group) {
    const auto first = weights.subspan(static_cast<std::size_t>(group * shape.experts_per_group()),
                                       static_cast<std::size_t>(shape.experts_per_group()));
    single_group = std::max(single_group, pool_lower_bound(first, shape.slots / shape.nodes, shape.gpus_per_node()));
  }
  return std::max(global, single_group);
}

}  // namespace moeplan::eplb
