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

std::vector<std::int32_t> experts_heaviest_first(std::span<const TokenCount> weights,
                                                 std::span<const std::int64_t> counts) {
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

std::vector<std::int64_t> apportion_replicas(std::span<const TokenCount> weights, std::int64_t slots,
                                             std::int64_t max_replicas) {
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

std::vector<ReplicaLoad> least_largest_replica_by_slots_sorted(std::span<const TokenCount> descending,
                                                               std::int64_t slots) {
  const auto entries = static_cast<std::size_t>(slots) - descending.size() + 1;
  if (descending.empty()) return std::vector<ReplicaLoad>(entries);
  // The greedy gives the expert with the heaviest replica one more. Only a prefix of the experts
  // ever has more than one replica: past it every expert is single and no heavier than the first
  // single one, so the heaviest replica is the heaviest of the prefix (a max-heap; which of two
  // equal loads is taken changes no entry) or that first single expert.
  const auto lighter = [](const ReplicaLoad& a, const ReplicaLoad& b) {
    return heavier_replica(b.tokens, b.replicas, a.tokens, a.replicas);
  };
  std::vector<ReplicaLoad> prefix;
  prefix.reserve(std::min(entries, descending.size()));
  std::vector<ReplicaLoad> largest;
  largest.reserve(entries);
  for (std::size_t single = 0;;) {
    const bool take_single =
        single < descending.size() && (prefix.empty() || !lighter(ReplicaLoad{descending[single], 1}, prefix.front()));
    largest.push_back(take_single ? ReplicaLoad{descending[single], 1} : prefix.front());
    if (largest.size() == entries) return largest;
    if (take_single) {
      prefix.push_back({descending[single++], 2});
    } else {
      std::pop_heap(prefix.begin(), prefix.end(), lighter);
      ++prefix.back().replicas;
    }
    std::push_heap(prefix.begin(), prefix.end(), lighter);
  }
}

double best_largest_replica_load(std::span<const TokenCount> weights, std::int64_t slots) {
  return least_largest_replica_by_slots(weights, slots).back().value();
}

}  // namespace moeplan::eplb
