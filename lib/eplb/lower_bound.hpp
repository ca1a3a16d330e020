#pragma once
// Lower bounds on the largest GPU load any placement can reach ([moeplan-eplb-bounds]: LB = max(total / P,
// min over counts of max_e w_e / c_e), strengthened with the slot pigeonhole and the heaviest
// replica's partners).
#include <cstdint>
#include <span>

#include "eplb/deployment_shape.hpp"
#include "eplb/load_log.hpp"

namespace moeplan::eplb {

// weights [n] over `slots` slots on `gpus` GPUs -> the largest of:
//  * the mean, total / gpus;
//  * the best achievable largest replica, min over counts of max_e w_e / c_e (greedy, exact);
//  * the slot pigeonhole: at most k = slots - n experts have a second replica, so the j-th largest
//    single-replica expert weighs at least w_(k+j) (weights sorted descending, 1-based); among the
//    q*gpus + 1 heaviest of those, some GPU holds q + 1, so it carries at least
//    w_(k+q*gpus+1-q) + ... + w_(k+q*gpus+1), for every q below slots_per_gpu;
//  * the heaviest replica with the lightest: the GPU holding the heaviest replica holds
//    slots_per_gpu - 1 more, each at least the lightest replica. Say expert f holds the lightest,
//    w_f / m, as one of m replicas. Taking f back to one replica leaves counts over slots - m + 1
//    slots whose largest replica, max(heaviest other replica, w_f), is at least A(slots - m + 1),
//    A(s) being the least largest replica with s slots (greedy, exact for every s). So the
//    heaviest replica is at least A(slots - m + 1) when w_f < A(slots - m + 1), and at least
//    A(slots) in any case; the least of that plus (slots_per_gpu - 1) * w_f / m, over every f and
//    m, is a bound. With 2 slots per GPU this is the pairing of the heaviest replica with the
//    lightest, which is where the best pairing of a skewed layer usually peaks.
double pool_lower_bound(std::span<const TokenCount> weights, std::int64_t slots, std::int64_t gpus);

// The bound for placements that keep every group, with all its replicas, on one node: the least,
// over the ways to put groups on nodes (any number per node that fits the node's slots), of the
// largest node's pool_lower_bound. Exact over those assignments when there are at most 16 groups;
// otherwise the largest single-group bound (still valid, less tight). weights [n]; a scalar.
double hierarchical_lower_bound(std::span<const TokenCount> weights, const DeploymentShape& shape);

}  // namespace moeplan::eplb
