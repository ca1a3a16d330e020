#include "eplb/replication.hpp"

#include <algorithm>
#include <queue>

namespace moeplan::eplb {

std::vector<std::int64_t> apportion_replicas(std::span<const TokenCount> weights, std::int64_t slots, std::int64_t max_replicas) {
  std::vector<std::int64_t> counts(weights.size(), 1);
  // The top of the heap is the expert with the heaviest replica; on equal loads the lower index.
  const auto lighter = [&](std::int32_t a, std::int32_t b) {
    if (heavier_replica(weights[b], counts[b], weights[a], counts[a])) return true;
    if (heavier_replica(weights[a], counts[a], weights[b], counts[b])) return false;
    return a > b;
  };
  std::vector<std::int32_t> experts(weights.size());
  for (std::size_t expert = 0; expert < experts.size(); ++expert) experts[expert] = static_cast<std::int32_t>(expert);
  std::priority_queue<std::int32_t, std::vector<std::int32_t>, decltype(lighter)> heaviest(lighter, std::move(experts));
  std::vector<std::int32_t> capped;
  for (auto extra = slots - static_cast<std::int64_t>(weights.size()); extra > 0; --extra) {
    if (heaviest.empty()) {  // every expert at the cap: the cap cannot hold, lift it
      for (const auto expert : capped) heaviest.push(expert);
      capped.clear();
      max_replicas = std::numeric_limits<std::int64_t>::max();
    }
    const auto expert = heaviest.top();
    heaviest.pop();
    ++counts[expert];
    if (counts[expert] < max_replicas) {
      heaviest.push(expert);
    } else {
      capped.push_back(expert);
    }
  }
  return counts;
}

std::vector<ReplicaLoad> least_largest_replica_by_slots(std::span<const TokenCount> weights, std::int64_t slots) {
  std::vector<std::int64_t> counts(weights.size(), 1);
  // The top of the heap is the expert with the heaviest replica; on equal loads the lower index.
  const auto lighter = [&](std::int32_t a, std::int32_t b) {
    if (heavier_replica(weights[b], counts[b], weights[a], counts[a])) return true;
    if (heavier_replica(weights[a], counts[a], weights[b], counts[b])) return false;
    return a > b;
  };
  std::vector<std::int32_t> experts(weights.size());
  for (std::size_t expert = 0; expert < experts.size(); ++expert) experts[expert] = static_cast<std::int32_t>(expert);
  std::priority_queue<std::int32_t, std::vector<std::int32_t>, decltype(lighter)> heaviest(lighter, std::move(experts));
  std::vector<ReplicaLoad> largest;
  largest.reserve(static_cast<std::size_t>(slots) - weights.size() + 1);
  for (auto used = static_cast<std::int64_t>(weights.size());; ++used) {
    const auto expert = heaviest.top();
    largest.push_back({weights[expert], counts[expert]});
    if (used == slots) return largest;
    heaviest.pop();
    ++counts[expert];
    heaviest.push(expert);
  }
}

double best_largest_replica_load(std::span<const TokenCount> weights, std::int64_t slots) {
  return least_largest_replica_by_slots(weights, slots).back().value();
}

}  // namespace moeplan::eplb
