#pragma once
// Two slots per GPU (doc 001's EP144 decode unit: 288 slots on 144 GPUs): packing is a pairing.
#include <cstdint>
#include <span>
#include <vector>

#include "eplb/balanced_packing.hpp"

namespace moeplan::eplb {

// Pairs the i-th heaviest replica with the i-th lightest, GPU i getting pair i: weights [n],
// counts [n] -> Packing with 2 slots per GPU. For fixed counts this minimises the largest pair
// sum (exchange argument: any crossing pair can be uncrossed without raising the maximum).
Packing pack_replicas_in_pairs(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, std::int64_t gpus);

// The largest pair sum of that pairing, and on how many GPUs it occurs, computed from the experts
// alone: `order` [n] lists the experts heaviest replica first (as replicas_heaviest_first sorts
// them), counts [n]. O(n), so a search over counts can score a move without building the packing.
struct PairingScore {
  double largest = 0;
  std::int64_t gpus_at_largest = 0;
  bool better_than(const PairingScore& other) const;
};
PairingScore score_pairing(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                           std::span<const std::int32_t> order);

// Experts sorted heaviest replica first, ties to the lower index: [n].
std::vector<std::int32_t> experts_heaviest_first(std::span<const TokenCount> weights, std::span<const std::int64_t> counts);

// Counts [n] aimed at pair sums <= target: each expert gets the fewest replicas that keep them
// <= target, and the slots left over go one by one to the expert whose next replica is lightest
// (w / (c + 1) smallest, lower index on ties), since light replicas are the partners heavy ones
// need. Empty when even the fewest replicas need more than `slots`.
std::vector<std::int64_t> pairing_counts_for_target(std::span<const TokenCount> weights, std::int64_t slots, double target);

// Bisects the target between `lower` and `upper` (scalars, tokens per GPU) and returns the counts
// [n] whose pairing has the smallest largest pair; empty when no target gave feasible counts.
std::vector<std::int64_t> best_pairing_counts(std::span<const TokenCount> weights, std::int64_t slots, double lower, double upper);

}  // namespace moeplan::eplb
