#pragma once
// Improving a packing after the greedy pass: replica swaps between GPUs (LPT plus swap
// refinement, [moeplan-eplb-bounds]) and separating two replicas of one expert that share a GPU (deepseek-ai/EPLB#22).
#include <cstdint>
#include <span>

#include "eplb/balanced_packing.hpp"

namespace moeplan::eplb {

// Swaps one replica of the heaviest GPU with a lighter replica elsewhere while that strictly
// lowers the larger of the two GPUs' loads; never puts two replicas of one expert on a GPU.
// Stops once the heaviest GPU carries at most `good_enough` tokens, when no swap helps, or after
// 4 x slots swaps in all, `swaps_made` of them made on this packing by an earlier call with a
// larger good_enough: this call then goes on exactly as one call with its own good_enough would
// have from the start. weights [n], counts [n]; packing is updated in place. Returns the swaps
// made in all, swaps_made included.
std::int64_t refine_by_swaps(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                             Packing& packing, double good_enough = 0, std::int64_t swaps_made = 0);

// For each GPU holding two replicas of one expert, swaps one of them with a replica on another
// GPU when neither GPU then exceeds the current maximum load (equal or better balance) and no new
// duplicate appears; weights [n], counts [n]. Returns how many slots still share their GPU with
// another replica of their expert (no swap could separate them without raising the maximum).
std::int64_t separate_duplicate_replicas(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                                         Packing& packing);

}  // namespace moeplan::eplb
