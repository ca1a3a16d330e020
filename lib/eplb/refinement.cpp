#include "eplb/refinement.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
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
std::vector<double> slot_loads(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                               const Packing& packing) {
  std::vector<double> loads(packing.slot_experts.size());
  for (std::size_t slot = 0; slot < loads.size(); ++slot)
    loads[slot] = replica_load(weights, counts, packing.slot_experts[slot]);
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
constexpr double kRefinementTolerance = 1e-12;

// True when `candidate` (slot, other slot, larger load) beats `best`: a lower larger load, then the
// lower slot of the heaviest GPU, then the lower other slot (the order a scan of slots meets them).
// A total order, so the best of a set of swaps does not depend on the order they are tried in.
bool better_swap(const Swap& candidate, const Swap& best) {
  if (candidate.larger_load != best.larger_load) return candidate.larger_load < best.larger_load;
  return candidate.first_slot != best.first_slot ? candidate.first_slot < best.first_slot
                                                 : candidate.second_slot < best.second_slot;
}

// What the swap search keeps beside the packing, updated with every swap: the replica load in
// every slot [slots], each GPU's slots lightest replica first [gpus][slots_per_gpu] (ties in any
// order), and the GPUs lightest first, the lower index on ties [gpus].
struct SwapOrders {
  std::vector<double> loads;
  std::vector<std::int64_t> slots_by_load;
  std::vector<std::int64_t> gpus_by_load;
};

bool lighter_gpu(const Packing& packing, std::int64_t a, std::int64_t b) {
  return packing.gpu_loads[a] != packing.gpu_loads[b] ? packing.gpu_loads[a] < packing.gpu_loads[b] : a < b;
}

// Re-sorts the slots of `gpu` by replica load (insertion sort: one or two slots changed).
void sort_gpu_slots(SwapOrders& orders, const Packing& packing, std::int64_t gpu) {
  const auto first = orders.slots_by_load.begin() + gpu * packing.slots_per_gpu;
  for (auto current = first + 1; current < first + packing.slots_per_gpu; ++current) {
    for (auto place = current; place > first && orders.loads[*place] < orders.loads[*(place - 1)]; --place) {
      std::iter_swap(place, place - 1);
    }
  }
}

// Moves `gpu`, whose load changed, to its place in gpus_by_load.
void place_gpu(SwapOrders& orders, const Packing& packing, std::int64_t gpu) {
  auto& order = orders.gpus_by_load;
  auto at = std::find(order.begin(), order.end(), gpu);
  for (; at + 1 != order.end() && lighter_gpu(packing, *(at + 1), gpu); ++at) std::iter_swap(at, at + 1);
  for (; at != order.begin() && lighter_gpu(packing, gpu, *(at - 1)); --at) std::iter_swap(at, at - 1);
}

SwapOrders swap_orders(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                       const Packing& packing) {
  SwapOrders orders{slot_loads(weights, counts, packing), std::vector<std::int64_t>(packing.slot_experts.size()),
                    std::vector<std::int64_t>(static_cast<std::size_t>(packing.gpus()))};
  // Each GPU's slots last first: the greedy packing fills a GPU heaviest replica first, so that is
  // usually sorted already.
  for (std::size_t slot = 0; slot < orders.slots_by_load.size(); ++slot) {
    const auto per_gpu = static_cast<std::size_t>(packing.slots_per_gpu);
    orders.slots_by_load[slot] = static_cast<std::int64_t>(slot - slot % per_gpu + per_gpu - 1 - slot % per_gpu);
  }
  for (std::int64_t gpu = 0; gpu < packing.gpus(); ++gpu) sort_gpu_slots(orders, packing, gpu);
  std::iota(orders.gpus_by_load.begin(), orders.gpus_by_load.end(), 0);
  std::sort(orders.gpus_by_load.begin(), orders.gpus_by_load.end(),
            [&](std::int64_t a, std::int64_t b) { return lighter_gpu(packing, a, b); });
  return orders;
}

void apply_swap(SwapOrders& orders, Packing& packing, const Swap& swap) {
  apply_swap(orders.loads, packing, swap);
  for (const auto gpu : {swap.first_slot / packing.slots_per_gpu, swap.second_slot / packing.slots_per_gpu}) {
    sort_gpu_slots(orders, packing, gpu);
    place_gpu(orders, packing, gpu);
  }
}

// The best swap of a replica on `gpu` with one on `other_gpu` (lighter), better than `best`, that
// creates no duplicate; `best` is updated in place. Both GPUs' slots are walked lightest first: a
// heavier replica a shifts more (a - b) onto other_gpu for every b, so the lightest b that does not
// lift other_gpu above the best only moves right, and for each a the walk over b stops at the first
// b that leaves `gpu` above the best. Rounding keeps both monotone, so no candidate is missed.
void best_swap_between(const SwapOrders& orders, const Packing& packing, std::int64_t gpu, std::int64_t other_gpu,
                       Swap& best) {
  const auto per_gpu = packing.slots_per_gpu;
  const double own_load = packing.gpu_loads[gpu];
  const double other_load = packing.gpu_loads[other_gpu];
  const auto* own_slots = orders.slots_by_load.data() + gpu * per_gpu;
  const auto* other_slots = orders.slots_by_load.data() + other_gpu * per_gpu;
  std::int64_t first_fitting = 0;  // index into other_slots
  for (std::int64_t own = 0; own < per_gpu; ++own) {
    const auto slot = own_slots[own];
    const double load = orders.loads[slot];
    while (first_fitting < per_gpu &&
           other_load + (load - orders.loads[other_slots[first_fitting]]) > best.larger_load) {
      ++first_fitting;
    }
    if (first_fitting == per_gpu) return;  // every b lifts other_gpu above the best, for this a and heavier ones
    const auto expert = packing.slot_experts[slot];
    int other_holds_expert = -1;  // unknown until a candidate needs it
    for (auto index = first_fitting; index < per_gpu; ++index) {
      const auto other_slot = other_slots[index];
      const double shift = load - orders.loads[other_slot];
      if (own_load - shift > best.larger_load) break;
      const Swap candidate{slot, other_slot, std::max(own_load - shift, other_load + shift)};
      if (!better_swap(candidate, best)) continue;
      if (other_holds_expert < 0) other_holds_expert = gpu_holds(packing, other_gpu, expert, -1) ? 1 : 0;
      if (other_holds_expert == 1) break;
      if (!gpu_holds(packing, gpu, packing.slot_experts[other_slot], slot)) best = candidate;
    }
  }
}

// The swap that lowers the heaviest GPU `gpu` most, below `ceiling`; first_slot -1 when none.
// Lighter GPUs are tried lightest first, and a GPU whose mean with `gpu` is already above the
// best found is skipped with all heavier ones: no swap leaves both below their mean. Ties go as
// in a scan of slots and GPUs in index order.
Swap best_swap_off(const SwapOrders& orders, const Packing& packing, std::int64_t gpu, double ceiling) {
  const double own_load = packing.gpu_loads[gpu];
  Swap best{-1, -1, ceiling};
  for (const auto other_gpu : orders.gpus_by_load) {
    if (packing.gpu_loads[other_gpu] >= own_load) break;
    // The margin covers rounding in the two sums a candidate is scored by.
    if (0.5 * (own_load + packing.gpu_loads[other_gpu]) > best.larger_load * (1 + kRefinementTolerance)) break;
    best_swap_between(orders, packing, gpu, other_gpu, best);
  }
  return best;
}

// The heaviest GPU, the lowest index among equals (Packing::heaviest_gpu), from gpus_by_load.
std::int64_t heaviest_gpu(const SwapOrders& orders, const Packing& packing) {
  const double heaviest = packing.gpu_loads[orders.gpus_by_load.back()];
  auto first = orders.gpus_by_load.end() - 1;
  while (first != orders.gpus_by_load.begin() && packing.gpu_loads[*(first - 1)] == heaviest) --first;
  return *first;
}

}  // namespace

std::int64_t refine_by_swaps(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                             Packing& packing, double good_enough, std::int64_t swaps_made) {
  const auto max_swaps = 4 * packing.gpus() * packing.slots_per_gpu;
  if (swaps_made >= max_swaps) return swaps_made;
  auto orders = swap_orders(weights, counts, packing);
  for (auto swaps = swaps_made; swaps < max_swaps; ++swaps) {
    const auto gpu = heaviest_gpu(orders, packing);
    const double heaviest = packing.gpu_loads[gpu];
    if (heaviest <= good_enough) return swaps;
    const auto best = best_swap_off(orders, packing, gpu, heaviest * (1 - kRefinementTolerance));
    if (best.first_slot < 0) return swaps;
    apply_swap(orders, packing, best);
  }
  return max_swaps;
}

std::int64_t separate_duplicate_replicas(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                                         Packing& packing) {
  if (duplicate_slots(packing) == 0) return 0;
  std::int64_t remaining = 0;
  std::vector<double> loads;  // slot_loads, once a duplicate is met
  for (std::int64_t slot = 0; slot < static_cast<std::int64_t>(packing.slot_experts.size()); ++slot) {
    const auto gpu = slot / packing.slots_per_gpu;
    if (!gpu_holds(packing, gpu, packing.slot_experts[slot], slot)) continue;
    if (loads.empty()) loads = slot_loads(weights, counts, packing);
    const double ceiling = packing.max_load() * (1 + kRefinementTolerance);
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
