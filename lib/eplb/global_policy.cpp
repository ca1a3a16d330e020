#include "eplb/lower_bound.hpp"
#include "eplb/policies.hpp"
#include "eplb/pool_solver.hpp"

namespace moeplan::eplb {

SlotRow place_layer_global(std::span<const TokenCount> weights, const DeploymentShape& shape) {
  const auto solution =
      solve_pool(weights, shape.slots, shape.gpus, pool_lower_bound(weights, shape.slots, shape.gpus));
  SlotRow row(solution.packing.slot_experts);
  order_slots_within_gpus(row, shape);
  return row;
}

}  // namespace moeplan::eplb
