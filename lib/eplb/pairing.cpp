#include "eplb/pairing.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

#include "eplb/replication.hpp"

namespace moeplan::eplb {

Packing pack_replicas_in_pairs(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, std::int64_t gpus) {
  const auto replicas = replicas_heaviest_first(weights, counts);
  Packing packing;
  packing.slots_per_gpu = 2;
  packing.slot_experts.resize(replicas.size());
  packing.gpu_loads.resize(static_cast<std::size_t>(gpus));
  for (std::size_t gpu = 0; gpu < packing.gpu_loads.size(); ++gpu) {
    const auto heavy = replicas[gpu];
    const auto light = replicas[replicas.size() - 1 - gpu];
    packing.slot_experts[2 * gpu] = heavy;
    packing.slot_experts[2 * gpu + 1] = light;
    packing.gpu_loads[gpu] = replica_load(weights, counts, heavy) + replica_load(weights, counts, light);
  }
  return packing;
}

bool PairingScore::better_than(const PairingScore& other) const {
  constexpr double tolerance = 1e-12;
  if (largest < other.largest * (1 - tolerance)) return true;
  return largest <= other.largest * (1 + tolerance) && gpus_at_largest < other.gpus_at_largest;
}

std::vector<std::int32_t> experts_heaviest_first(std::span<const TokenCount> weights, std::span<const std::int64_t> counts) {
  std::vector<std::int32_t> experts(weights.size());
  for (std::size_t expert = 0; expert < experts.size(); ++expert) experts[expert] = static_cast<std::int32_t>(expert);
  std::sort(experts.begin(), experts.end(), [&](std::int32_t a, std::int32_t b) {
    if (heavier_replica(weights[a], counts[a], weights[b], counts[b])) return true;
    if (heavier_replica(weights[b], counts[b], weights[a], counts[a])) return false;
    return a < b;
  });
  return experts;
}

PairingScore score_pairing(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                           std::span<const std::int32_t> order) {
  // Two pointers over runs of equal replicas: the heavy end pairs with the light end.
  PairingScore score;
  const auto record = [&](double sum, std::int64_t pairs) {
    if (sum > score.largest * (1 + 1e-12)) {
      score = {sum, pairs};
    } else if (sum >= score.largest * (1 - 1e-12)) {
      score.gpus_at_largest += pairs;
    }
  };
  std::vector<std::int64_t> left(order.size());  // replicas of order[k] not yet paired
  for (std::size_t rank = 0; rank < order.size(); ++rank) left[rank] = counts[order[rank]];
  std::size_t heavy = 0;
  std::size_t light = order.size() - 1;
  while (heavy < light) {
    const auto pairs = std::min(left[heavy], left[light]);
    record(replica_load(weights, counts, order[heavy]) + replica_load(weights, counts, order[light]), pairs);
    left[heavy] -= pairs;
    left[light] -= pairs;
    if (left[heavy] == 0) ++heavy;
    if (left[light] == 0) --light;
  }
  // The replicas left in the middle run pair with each other.
  if (heavy == light && left[heavy] > 0) record(2 * replica_load(weights, counts, order[heavy]), left[heavy] / 2);
  return score;
}

std::vector<std::int64_t> pairing_counts_for_target(std::span<const TokenCount> weights, std::int64_t slots, double target) {
  std::vector<std::int64_t> counts(weights.size());
  std::int64_t used = 0;
  for (std::size_t expert = 0; expert < weights.size(); ++expert) {
    const double needed = target > 0 ? std::ceil(static_cast<double>(weights[expert]) / target) : 1.0;
    counts[expert] = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::min(needed, 1e15)));
    used += counts[expert];
    if (used > slots) return {};
  }
  // The top of the heap is the expert whose next replica would be lightest; the lower index on ties.
  const auto heavier_next = [&](std::int32_t a, std::int32_t b) {
    if (heavier_replica(weights[a], counts[a] + 1, weights[b], counts[b] + 1)) return true;
    if (heavier_replica(weights[b], counts[b] + 1, weights[a], counts[a] + 1)) return false;
    return a > b;
  };
  std::vector<std::int32_t> experts(weights.size());
  for (std::size_t expert = 0; expert < experts.size(); ++expert) experts[expert] = static_cast<std::int32_t>(expert);
  std::priority_queue<std::int32_t, std::vector<std::int32_t>, decltype(heavier_next)> lightest_next(heavier_next, std::move(experts));
  for (; used < slots; ++used) {
    const auto expert = lightest_next.top();
    lightest_next.pop();
    ++counts[expert];
    lightest_next.push(expert);
  }
  return counts;
}

std::vector<std::int64_t> best_pairing_counts(std::span<const TokenCount> weights, std::int64_t slots, double lower, double upper) {
  constexpr int kBisectionSteps = 24;  // 2^-24 of the interval: far below one token on real loads
  const auto gpus = slots / 2;
  std::vector<std::int64_t> best;
  double best_max = upper;
  for (int step = 0; step < kBisectionSteps && lower < upper; ++step) {
    const double target = 0.5 * (lower + upper);
    auto counts = pairing_counts_for_target(weights, slots, target);
    if (counts.empty()) {
      lower = target;
      continue;
    }
    const double reached = pack_replicas_in_pairs(weights, counts, gpus).max_load();
    if (reached < best_max) {
      best_max = reached;
      best = std::move(counts);
    }
    if (reached <= target) {
      upper = target;
    } else {
      lower = target;
    }
  }
  return best;
}

}  // namespace moeplan::eplb
