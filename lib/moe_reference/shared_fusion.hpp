#pragma once
// Shared-expert fusion [doc-000]: the shared expert becomes one more expert that every token
// selects, so one grouped GEMM computes routed and shared experts together.
#include "moe_reference/routing.hpp"

namespace moeplan::moe_reference {

// The replica a token's shared column names: tokens are spread round-robin so that each replica
// takes an equal share ([doc-000] spreads them at random for the same reason).
int shared_replica_of_token(int token, int replicas);

// Appends one column per token naming its shared replica. [doc-000]: the shared expert's weight is
// pre-divided by routed_scaling_factor, since the combined output is multiplied by it afterwards.
Routing fuse_shared_expert(const Routing& routed, const SharedFusion& fusion);

}  // namespace moeplan::moe_reference
