#include "eplb/refinement.hpp"

#include <algorithm>
#include <limits>
#include <vector>

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

// The replica load in every slot: packing [gpus][slots_per_gpu] -> loads [slots], w / c each, so
// the swap search compares without dividing.
std::vector<double> slot_loads(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, const Packing& packing) {
  std::vector<double> loads(packing.slot_experts.size());
  for (std::size_t slot = 0; slot < loads.size(); ++slot) loads[slot] = replica_load(weights, counts, packing.slot_experts[slot]);
  return loads;
}

// The best swap of `slot` (on its GPU) with any slot of another GPU that creates no duplicate;
// with `lighter_only`, only GPUs lighter than the slot's own (the only ones that can lower it).
// loads [slots] as slot_loads gives them. Ties: the first other GPU, then the first slot on it.
Swap best_swap_for_slot(std::span<const double> loads, const Packing& packing, std::int64_t slot, bool lighter_only) {
  const auto per_gpu = packing.slots_per_gpu;
  const auto gpu = slot / per_gpu;
  const auto expert = packing.slot_experts[slot];
  const double load = loads[slot];
  const double own_load = packing.gpu_loads[gpu];
  Swap best;
  for (std::int64_t other_gpu = 0; other_gpu < packing.gpus(); ++other_gpu) {
    const double other_load = packing.gpu_loads[other_gpu];
    if (other_gpu == gpu || (lighter_only && other_load >= own_load)) continue;
    bool holds_expert = false;
    for (auto other_slot = other_gpu * per_gpu; other_slot < (other_gpu + 1) * per_gpu; ++other_slot) {
      const double shift = load - loads[other_slot];
      const double larger = std::max(own_load - shift, other_load + shift);
      // The cheap test first; the duplicate checks only for a swap that would be the best so far.
      const auto other_expert = packing.slot_experts[other_slot];
      if (!(larger < best.larger_load) || other_expert == expert) continue;
      holds_expert = holds_expert || gpu_holds(packing, other_gpu, expert, -1);
      if (holds_expert) break;
      if (!gpu_holds(packing, gpu, other_expert, slot)) best = {slot, other_slot, larger};
    }
  }
  return best;
}

void apply_swap(std::vector<double>& loads, Packing& packing, const Swap& swap) {
  const double shift = loads[swap.first_slot] - loads[swap.second_slot];
  packing.gpu_loads[swap.first_slot / packing.slots_per_gpu] -= shift;
  packing.gpu_loads[swap.second_slot / packing.slots_per_gpu] += shift;
  std::swap(packing.slot_experts[swap.first_slot], packing.slot_experts[swap.second_slot]);
  std::swap(loads[swap.first_slot], loads[swap.second_slot]);
}

// A gain smaller than this share of the load is rounding, not progress: it must not cycle.
constexpr double kRelativeTolerance = 1e-12;

// True when `candidate` (slot, other slot, larger load) beats `best`: a lower larger load, then the
// lower slot of the heaviest GPU, then the lower other slot (the order a scan of slots meets them).
bool better_swap(const Swap& candidate, const Swap& best) {
  if (candidate.larger_load != best.larger_load) return candidate.larger_load < best.larger_load;
  return candidate.first_slot != best.first_slot ? candidate.first_slot < best.first_slot : candidate.second_slot < best.second_slot;
}

// The best swap of a replica on `gpu` with one on `other_gpu` (lighter), better than `best`, that
// creates no duplicate; `best` is updated in place. loads [slots] as slot_loads gives them.
void best_swap_between(std::span<const double> loads, const Packing& packing, std::int64_t gpu, std::int64_t other_gpu, Swap& best) {
  const auto per_gpu = packing.slots_per_gpu;
  const double own_load = packing.gpu_loads[gpu];
  const double other_load = packing.gpu_loads[other_gpu];
  for (auto slot = gpu * per_gpu; slot < (gpu + 1) * per_gpu; ++slot) {
    const auto expert = packing.slot_experts[slot];
    int other_holds_expert = -1;  // unknown until a candidate needs it
    for (auto other_slot = other_gpu * per_gpu; other_slot < (other_gpu + 1) * per_gpu; ++other_slot) {
      const double shift = loads[slot] - loads[other_slot];
      const Swap candidate{slot, other_slot, std::max(own_load - shift, other_load + shift)};
      if (!better_swap(candidate, best)) continue;
      const auto other_expert = packing.slot_experts[other_slot];
      if (other_holds_expert < 0) other_holds_expert = gpu_holds(packing, other_gpu, expert, -1) ? 1 : 0;
      if (other_holds_expert == 1) break;
      if (!gpu_holds(packing, gpu, other_expert, slot)) best = candidate;
    }
  }
}

// The swap that lowers the heaviest GPU `gpu` most, below `ceiling`; first_slot -1 when none.
// Lighter GPUs are tried lightest first, and a GPU whose mean with `gpu` is already above the
// best found is skipped with all heavier ones: no swap leaves both below their mean. `order` is
// scratch space [gpus]. Ties go as in a scan of slots and GPUs in index order.
Swap best_swap_off(std::span<const double> loads, const Packing& packing, std::int64_t gpu, double ceiling,
                   std::vector<std::int64_t>& order) {
  const double own_load = packing.gpu_loads[gpu];
  order.clear();
  for (std::int64_t other_gpu = 0; other_gpu < packing.gpus(); ++other_gpu) {
    if (packing.gpu_loads[other_gpu] < own_load) order.push_back(other_gpu);
  }
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return packing.gpu_loads[a] != packing.gpu_loads[b] ? packing.gpu_loads[a] < packing.gpu_loads[b] : a < b;
  });
  Swap best{-1, -1, ceiling};
  for (const auto other_gpu : order) {
    // The margin covers rounding in the two sums a candidate is scored by.
    if (0.5 * (own_load + packing.gpu_loads[other_gpu]) > best.larger_load * (1 + kRelativeTolerance)) break;
    best_swap_between(loads, packing, gpu, other_gpu, best);
  }
  return best;
}

}  // namespace

void refine_by_swaps(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, Packing& packing,
                     double good_enough) {
  const auto max_rounds = 4 * packing.gpus() * packing.slots_per_gpu;
  auto loads = slot_loads(weights, counts, packing);
  std::vector<std::int64_t> order;
  for (std::int64_t round = 0; round < max_rounds; ++round) {
    const auto gpu = packing.heaviest_gpu();
    const double heaviest = packing.gpu_loads[gpu];
    if (heaviest <= good_enough) return;
    const auto best = best_swap_off(loads, packing, gpu, heaviest * (1 - kRelativeTolerance), order);
    if (best.first_slot < 0) return;
    apply_swap(loads, packing, best);
  }
}

std::int64_t separate_duplicate_replicas(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                                         Packing& packing) {
  std::int64_t remaining = 0;
  auto loads = slot_loads(weights, counts, packing);
  for (std::int64_t slot = 0; slot < static_cast<std::int64_t>(packing.slot_experts.size()); ++slot) {
    const auto gpu = slot / packing.slots_per_gpu;
    if (!gpu_holds(packing, gpu, packing.slot_experts[slot], slot)) continue;
    const double ceiling = packing.max_load() * (1 + kRelativeTolerance);
    const auto swap = best_swap_for_slot(loads, packing, slot, false);
    if (swap.larger_load <= ceiling) {
      apply_swap(loads, packing, swap);
    } else {
      ++remaining;
    }
  }
  return remaining;
}

}  // namespace moeplan::eplb
