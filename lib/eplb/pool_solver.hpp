#pragma once
// One pool of experts sharing a set of GPUs: all experts under the global policy, one node's
// experts under the hierarchical one. Chooses replica counts and packs replicas onto the GPUs.
#include <cstdint>
#include <span>
#include <vector>

#include "eplb/balanced_packing.hpp"

namespace moeplan::eplb {

struct PoolSolution {
  std::vector<std::int64_t> counts;  // [n] replicas per expert, each >= 1, summing to the pool's slots
  Packing packing;                   // [gpus][slots_per_gpu] local expert ids, and the GPU loads
};

// The packer for a pool: pairing for 2 slots per GPU, greedy LPT otherwise. weights [n], counts [n].
Packing pack_pool(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, std::int64_t gpus);

// EPLB's two steps on one pool ([deepseek-eplb]: replicate_experts then balanced_packing): the
// reference our solver starts from and must never do worse than. weights [n].
PoolSolution solve_pool_like_eplb(std::span<const TokenCount> weights, std::int64_t slots, std::int64_t gpus);

// Our solver: weights [n], slots (a multiple of gpus, >= n) -> counts and packing. Starts from
// EPLB's answer, moves single replicas between experts while the packed maximum falls (with 2
// slots per GPU: scored by the exact pairing, up to a budget of scored moves), refines by swaps
// and separates duplicate replicas. Only strict improvements are accepted, so the maximum GPU load
// is never above EPLB's on the same pool. The search stops once the maximum is at `bound` (tokens per GPU):
// the pool's lower bound (pool_lower_bound), or more where that is good enough (a node need not
// beat the bound of the heaviest node).
PoolSolution solve_pool(std::span<const TokenCount> weights, std::int64_t slots, std::int64_t gpus, double bound);

}  // namespace moeplan::eplb
