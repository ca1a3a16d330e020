#include "eplb/refinement.hpp"

#include <algorithm>
#include <limits>

namespace moeplan::eplb {

namespace {

// A swap of the replicas in two slots, and the larger of the two GPU loads it leads to.
struct Swap {
  std::int64_t first_slot = -1;
  std::int64_t second_slot = -1;
  double larger_load = std::numeric_limits<double>::infinity();
};

bool gpu_holds(const Packing& packing, std::int64_t gpu, std::int32_t expert, std::int64_t except_slot) {
  const auto first = gpu * packing.slots_per_gpu;
  for (auto slot = first; slot < first + packing.slots_per_gpu; ++slot) {
    if (slot != except_slot && packing.slot_experts[slot] == expert) return true;
  }
  return false;
}

// The best swap of `slot` (on its GPU) with any slot of another GPU that creates no duplicate;
// with `lighter_only`, only GPUs lighter than the slot's own (the only ones that can lower it).
Swap best_swap_for_slot(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, const Packing& packing,
                        std::int64_t slot, bool lighter_only) {
  const auto gpu = slot / packing.slots_per_gpu;
  const auto expert = packing.slot_experts[slot];
  const double load = replica_load(weights, counts, expert);
  Swap best;
  for (std::int64_t other_gpu = 0; other_gpu < packing.gpus(); ++other_gpu) {
    if (other_gpu == gpu || (lighter_only && packing.gpu_loads[other_gpu] >= packing.gpu_loads[gpu])) continue;
    bool holds_expert = false;
    for (auto other_slot = other_gpu * packing.slots_per_gpu; other_slot < (other_gpu + 1) * packing.slots_per_gpu; ++other_slot) {
      const auto other_expert = packing.slot_experts[other_slot];
      const double shift = load - replica_load(weights, counts, other_expert);
      const double larger = std::max(packing.gpu_loads[gpu] - shift, packing.gpu_loads[other_gpu] + shift);
      // The cheap test first; the duplicate checks only for a swap that would be the best so far.
      if (!(larger < best.larger_load) || other_expert == expert) continue;
      holds_expert = holds_expert || gpu_holds(packing, other_gpu, expert, -1);
      if (holds_expert) break;
      if (!gpu_holds(packing, gpu, other_expert, slot)) best = {slot, other_slot, larger};
    }
  }
  return best;
}

void apply_swap(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, Packing& packing, const Swap& swap) {
  auto& first = packing.slot_experts[swap.first_slot];
  auto& second = packing.slot_experts[swap.second_slot];
  const double shift = replica_load(weights, counts, first) - replica_load(weights, counts, second);
  packing.gpu_loads[swap.first_slot / packing.slots_per_gpu] -= shift;
  packing.gpu_loads[swap.second_slot / packing.slots_per_gpu] += shift;
  std::swap(first, second);
}

// A gain smaller than this share of the load is rounding, not progress: it must not cycle.
constexpr double kRelativeTolerance = 1e-12;

}  // namespace

void refine_by_swaps(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, Packing& packing,
                     double good_enough) {
  const auto max_rounds = 4 * packing.gpus() * packing.slots_per_gpu;
  for (std::int64_t round = 0; round < max_rounds; ++round) {
    const auto gpu = packing.heaviest_gpu();
    const double heaviest = packing.gpu_loads[gpu];
    if (heaviest <= good_enough) return;
    Swap best;
    for (auto slot = gpu * packing.slots_per_gpu; slot < (gpu + 1) * packing.slots_per_gpu; ++slot) {
      const auto candidate = best_swap_for_slot(weights, counts, packing, slot, true);
      if (candidate.larger_load < best.larger_load) best = candidate;
    }
    if (!(best.larger_load < heaviest * (1 - kRelativeTolerance))) return;
    apply_swap(weights, counts, packing, best);
  }
}

std::int64_t separate_duplicate_replicas(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                                         Packing& packing) {
  std::int64_t remaining = 0;
  for (std::int64_t slot = 0; slot < static_cast<std::int64_t>(packing.slot_experts.size()); ++slot) {
    const auto gpu = slot / packing.slots_per_gpu;
    if (!gpu_holds(packing, gpu, packing.slot_experts[slot], slot)) continue;
    const double ceiling = packing.max_load() * (1 + kRelativeTolerance);
    const auto swap = best_swap_for_slot(weights, counts, packing, slot, false);
    if (swap.larger_load <= ceiling) {
      apply_swap(weights, counts, packing, swap);
    } else {
      ++remaining;
    }
  }
  return remaining;
}

}  // namespace moeplan::eplb
