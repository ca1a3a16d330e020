#pragma once
// Packing replicas onto GPUs with exactly slots_per_gpu replicas each ([deepseek-eplb], balanced_packing).
#include <cstdint>
#include <span>
#include <vector>

#include "eplb/load_log.hpp"

namespace moeplan::eplb {

// A pool's replicas on its GPUs. Loads follow EPLB's model: each replica of expert e carries w_e / c_e.
struct Packing {
  std::int64_t slots_per_gpu = 1;
  std::vector<std::int32_t> slot_experts;  // [gpus][slots_per_gpu], flat, GPU-major: the expert in each slot
  std::vector<double> gpu_loads;           // [gpus]: tokens each GPU receives

  std::int64_t gpus() const { return static_cast<std::int64_t>(gpu_loads.size()); }
  double max_load() const;
  std::int64_t heaviest_gpu() const;  // lowest index among the heaviest
};

// Tokens of one replica of `expert`: w / c, as a double (the comparisons that pick replicas are exact).
inline double replica_load(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                           std::int32_t expert) {
  return static_cast<double>(weights[expert]) / static_cast<double>(counts[expert]);
}

// Every replica of every expert, heaviest first: shape [sum of counts]. Ties in load go to the
// lower expert index, so the order is a deterministic total order (no unstable sort, [deepseek-eplb-issues]).
std::vector<std::int32_t> replicas_heaviest_first(std::span<const TokenCount> weights,
                                                  std::span<const std::int64_t> counts);

// Greedy LPT with a cardinality cap: weights [n], counts [n] -> Packing over `gpus` GPUs. Each
// replica, heaviest first, goes to the lightest GPU with a free slot, ties to the lowest GPU index:
// EPLB's rule, so on the same counts this reproduces its per-GPU loads.
Packing pack_replicas_greedy(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                             std::int64_t gpus);

// Slots holding an expert that already has a replica in an earlier slot of the same GPU: 0 when
// no GPU holds two replicas of one expert.
std::int64_t duplicate_slots(const Packing& packing);

// Recomputes packing.gpu_loads from packing.slot_experts: weights [n], counts [n].
void recompute_gpu_loads(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, Packing& packing);

}  // namespace moeplan::eplb
