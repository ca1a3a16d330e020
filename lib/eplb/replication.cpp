#include "eplb/replication.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

namespace moeplan::eplb {
namespace {

std::vector<std::int32_t> every_expert(std::size_t count) {
  std::vector<std::int32_t> experts(count);
  std::iota(experts.begin(), experts.end(), 0);
  return experts;
}

// Heap order with the expert of the heaviest replica on top; on equal loads the lower index.
struct LighterReplica {
  std::span<const TokenCount> weights;
  const std::vector<std::int64_t>& counts;

  bool operator()(std::int32_t a, std::int32_t b) const { return replica_before(weights, counts, b, a); }
};

using ReplicaHeap = std::priority_queue<std::int32_t, std::vector<std::int32_t>, LighterReplica>;

}  // namespace

std::vector<std::int32_t> experts_heaviest_first(std::span<const TokenCount> weights, std::span<const std::int64_t> counts) {
  // Sorted by the replica load as a double first: rounding is monotone, so where two doubles differ
  // they are in replica_before's order, and equal doubles are settled exactly by replica_before.
  std::vector<std::pair<double, std::int32_t>> keyed(weights.size());
  for (std::int32_t expert = 0; expert < static_cast<std::int32_t>(weights.size()); ++expert) {
    // w / 1 is w exactly: most experts have one replica, and skip the division.
    const double weight = static_cast<double>(weights[expert]);
    keyed[expert] = {counts[expert] == 1 ? weight : weight / static_cast<double>(counts[expert]), expert};
  }
  std::sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : replica_before(weights, counts, a.second, b.second);
  });
  std::vector<std::int32_t> experts(weights.size());
  for (std::size_t rank = 0; rank < keyed.size(); ++rank) experts[rank] = keyed[rank].second;
  return experts;
}

std::vector<std::int64_t> apportion_replicas(std::span<const TokenCount> weights, std::int64_t slots, std::int64_t max_replicas) {
  std::vector<std::int64_t> counts(weights.size(), 1);
  ReplicaHeap heaviest(LighterReplica{weights, counts}, every_expert(weights.size()));
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
  std::vector<TokenCount> descending(weights.begin(), weights.end());
  std::sort(descending.begin(), descending.end(), std::greater<>());
  return least_largest_replica_by_slots_sorted(descending, slots);
}

std::vector<ReplicaLoad> least_largest_replica_by_slots_sorted(std::span<const TokenCount> descending, std::int64_t slots) {
  const auto entries = static_cast<std::size_t>(slots) - descending.size() + 1;
  // The greedy gives the expert with the heaviest replica one more. Only a prefix of the experts
  // ever has more than one replica: past it every expert is single and no heavier than the first
  // single one, so the heaviest replica is in the prefix or is that first single expert.
  if (descending.empty()) return std::vector<ReplicaLoad>(entries);
  std::vector<std::int64_t> replicas;  // [prefix]: replicas of each expert given more than one
  replicas.reserve(std::min(entries, descending.size()));
  std::vector<ReplicaLoad> largest;
  largest.reserve(entries);
  while (true) {
    // The first single expert, or with none left the first of the prefix.
    std::size_t chosen = replicas.size() < descending.size() ? replicas.size() : 0;
    ReplicaLoad heaviest{descending[chosen], chosen < replicas.size() ? replicas[chosen] : 1};
    for (std::size_t expert = 0; expert < replicas.size(); ++expert) {
      if (heavier_replica(descending[expert], replicas[expert], heaviest.tokens, heaviest.replicas)) {
        heaviest = {descending[expert], replicas[expert]};
        chosen = expert;
      }
    }
    largest.push_back(heaviest);
    if (largest.size() == entries) return largest;
    if (chosen == replicas.size()) replicas.push_back(1);
    ++replicas[chosen];
  }
}

double best_largest_replica_load(std::span<const TokenCount> weights, std::int64_t slots) {
  return least_largest_replica_by_slots(weights, slots).back().value();
}

}  // namespace moeplan::eplb
