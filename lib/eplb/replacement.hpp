#pragma once
// Re-placement with few moves: in a live server every slot that changes expert is a weight
// transfer (a rebalance from scratch makes "nearly full-scale expert adjustments", [vllm-eplb]), so walk
// from the current placement towards a freshly solved one, one slot at a time, best step first.
#include <cstdint>
#include <span>

#include "eplb/placement.hpp"
#include "eplb/solve.hpp"

namespace moeplan::eplb {

struct Replacement {
  SlotRow row;              // [slots]
  std::int64_t moves = 0;   // slots whose expert differs from the previous row
};

// Slots whose expert differs between two rows [slots]: the weight transfers needed.
std::int64_t count_moves(const SlotRow& before, const SlotRow& after);

// Reorders each GPU's slots in `row` [slots] so an expert the GPU held before keeps its old slot;
// loads do not change and fewer slots move (vLLM's preserve_intragpu_slots, [vllm-eplb]).
void keep_previous_slots(SlotRow& row, const SlotRow& previous, const DeploymentShape& shape);

// weights [experts], previous [slots] -> at most max_moves slot changes (negative: no limit),
// stopping early once balancedness reaches target_balancedness (<= 0: no target). Each step takes
// the change toward the fresh placement of `policy` that lowers the maximum GPU load most per
// slot moved: one slot, or two slots that trade experts. A step never leaves an expert without a
// replica, so every intermediate placement is valid. With neither limit, the fresh placement itself.
// A partial walk keeps groups on their nodes when the fresh placement keeps them where they were.
Replacement replace_with_few_moves(std::span<const TokenCount> weights, const SlotRow& previous, const DeploymentShape& shape,
                                   Policy policy, std::int64_t max_moves, double target_balancedness);

}  // namespace moeplan::eplb
