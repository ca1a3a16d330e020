#pragma once
// Replica counts: how many physical slots each logical expert gets ([deepseek-eplb], replicate_experts).
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "eplb/load_log.hpp"

namespace moeplan::eplb {

// True when one replica of expert a (w_a tokens over c_a replicas) carries more tokens than one of
// expert b, compared exactly: w_a * c_b > w_b * c_a (counts <= 2^40 and c <= 2^20 fit in 64 bits).
inline bool heavier_replica(TokenCount tokens_a, std::int64_t replicas_a, TokenCount tokens_b,
                            std::int64_t replicas_b) {
  return tokens_a * replicas_b > tokens_b * replicas_a;
}

// The heaviest-first order of experts: a's replica carries more tokens than b's, or as many and a is
// the lower index (weights [n], counts [n]).
inline bool replica_before(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, std::int32_t a,
                           std::int32_t b) {
  if (heavier_replica(weights[a], counts[a], weights[b], counts[b])) return true;
  if (heavier_replica(weights[b], counts[b], weights[a], counts[a])) return false;
  return a < b;
}

// Experts sorted heaviest replica first, ties to the lower index: weights [n], counts [n] -> [n].
std::vector<std::int32_t> experts_heaviest_first(std::span<const TokenCount> weights,
                                                 std::span<const std::int64_t> counts);

// Greedy min-max apportionment, weights [n] -> counts [n] (each >= 1, summing to `slots` >= n):
// every slot beyond the first n goes to the expert with the largest tokens per replica, ties to the
// lower expert index [deepseek-eplb]. This minimises max_e w_e / c_e exactly. An expert at
// `max_replicas` gets no more while another can (more replicas than GPUs forces two onto one GPU).
std::vector<std::int64_t> apportion_replicas(std::span<const TokenCount> weights, std::int64_t slots,
                                             std::int64_t max_replicas = std::numeric_limits<std::int64_t>::max());

// A largest replica load kept exact: `tokens` over `replicas`.
struct ReplicaLoad {
  TokenCount tokens = 0;
  std::int64_t replicas = 1;
  double value() const { return static_cast<double>(tokens) / static_cast<double>(replicas); }
};

// The least largest replica load at every slot count from n to `slots`: [slots - n + 1], entry j
// for n + j slots. The greedy of apportion_replicas gives every entry at once, since its choice for
// n + j slots is a prefix of its choice for more, and it is optimal for every slot count [deepseek-eplb].
// weights [n] in any order.
std::vector<ReplicaLoad> least_largest_replica_by_slots(std::span<const TokenCount> weights, std::int64_t slots);

// The same from weights sorted heaviest first [n]. Entry j is the (j + 1)-th largest of all w_e / c
// (c >= 1), so only the slots - n + 1 heaviest experts can supply an entry, and only they are read.
std::vector<ReplicaLoad> least_largest_replica_by_slots_sorted(std::span<const TokenCount> descending,
                                                               std::int64_t slots);

// The smallest achievable largest per-replica load, max_e w_e / c_e under apportion_replicas: a scalar.
double best_largest_replica_load(std::span<const TokenCount> weights, std::int64_t slots);

}  // namespace moeplan::eplb
