#pragma once
// Two slots per GPU (the EP144 decode unit of [doc-001]: 288 slots on 144 GPUs): packing is a pairing.
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "eplb/balanced_packing.hpp"

namespace moeplan::eplb {

// Pairs the i-th heaviest replica with the i-th lightest, GPU i getting pair i: weights [n],
// counts [n] -> Packing with 2 slots per GPU. For fixed counts this minimises the largest pair
// sum (exchange argument: any crossing pair can be uncrossed without raising the maximum).
Packing pack_replicas_in_pairs(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                               std::int64_t gpus);

// The largest pair sum of that pairing, and on how many GPUs it occurs, computed from the experts
// alone: `loads` [n] each expert's replica load w / c, counts [n], `order` [n] the experts heaviest
// replica first (as experts_heaviest_first sorts them). O(n) with no division, so a search over
// counts can score a move without building the packing. The walk stops at the first pair above
// `ceiling`: the score then only says the largest pair exceeds it.
struct PairingScore {
  double largest = 0;
  std::int64_t gpus_at_largest = 0;
  bool better_than(const PairingScore& other) const;
};
PairingScore score_pairing(std::span<const double> loads, std::span<const std::int64_t> counts,
                           std::span<const std::int32_t> order,
                           double ceiling = std::numeric_limits<double>::infinity());

// The experts with a replica in a pair of sum `largest` (a scalar, tokens per GPU), both ends of
// every such pair, in pairing order: [k]. loads [n], counts [n], `order` as for score_pairing.
std::vector<std::int32_t> experts_in_largest_pairs(std::span<const double> loads, std::span<const std::int64_t> counts,
                                                   std::span<const std::int32_t> order, double largest);

}  // namespace moeplan::eplb
