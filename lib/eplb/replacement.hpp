#pragma once
// Re-placement with few moves: in a live server every slot that changes expert is a weight
// transfer (a rebalance from scratch makes "nearly full-scale expert adjustments", [vllm-eplb]), so walk
// from the current placement towards a freshly solved one, one slot at a time, best step first.
#include <cstdint>
#include <span>
#include <vector>

#include "eplb/load_log.hpp"
#include "eplb/placement.hpp"
#include "eplb/solve.hpp"

namespace moeplan::eplb {

struct Replacement {
  SlotRow row;             // [slots]
  std::int64_t moves = 0;  // slots whose expert differs from the previous row
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
Replacement replace_with_few_moves(std::span<const TokenCount> weights, const SlotRow& previous,
                                   const DeploymentShape& shape, Policy policy, std::int64_t max_moves,
                                   double target_balancedness);

// Every layer re-placed from a previous placement.
struct PlacementReplacement {
  Placement placement;              // [layers][slots]
  std::vector<std::int64_t> moves;  // [layers]: slots changed in each layer

  std::int64_t total_moves() const;  // summed over the layers
};

// replace_with_few_moves on every layer of `log` (each layer's counts summed over the windows), from
// the row of the same layer in `previous` [layers][slots], on previous.shape; the limits hold per layer.
PlacementReplacement replace_all_layers(const LoadLog& log, const Placement& previous, Policy policy,
                                        std::int64_t max_moves, double target_balancedness);

}  // namespace moeplan::eplb
