#pragma once
// Replica counts: how many physical slots each logical expert gets (eplb.md §1, replicate_experts).
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "eplb/load_log.hpp"

namespace moeplan::eplb {

// True when one replica of expert a (w_a tokens over c_a replicas) carries more tokens than one of
// expert b, compared exactly: w_a * c_b > w_b * c_a (counts <= 2^40 and c <= 2^20 fit in 64 bits).
inline bool heavier_replica(TokenCount tokens_a, std::int64_t replicas_a, TokenCount tokens_b, std::int64_t replicas_b) {
  return tokens_a * replicas_b > tokens_b * replicas_a;
}

// Greedy min-max apportionment, weights [n] -> counts [n] (each >= 1, summing to `slots` >= n):
// every slot beyond the first n goes to the expert with the largest tokens per replica, ties to the
// lower expert index (eplb.md §1). This minimises max_e w_e / c_e exactly. An expert at
// `max_replicas` gets no more while another can (more replicas than GPUs forces two onto one GPU).
std::vector<std::int64_t> apportion_replicas(std::span<const TokenCount> weights, std::int64_t slots,
                                             std::int64_t max_replicas = std::numeric_limits<std::int64_t>::max());

// The smallest achievable largest per-replica load, max_e w_e / c_e under apportion_replicas: a scalar.
double best_largest_replica_load(std::span<const TokenCount> weights, std::int64_t slots);

}  // namespace moeplan::eplb
