#pragma once
// The two placement policies of [doc-001], one MoE layer at a time: weights [experts] -> row [slots].
#include <span>

#include "eplb/deployment_shape.hpp"
#include "eplb/load_log.hpp"
#include "eplb/placement.hpp"

namespace moeplan::eplb {

// [doc-001]: "replicates the experts globally regardless of expert groups, and pack the replicated
// experts to individual GPUs" (decode, large EP). One pool of all experts, slots and GPUs.
SlotRow place_layer_global(std::span<const TokenCount> weights, const DeploymentShape& shape);

// [doc-001]: "pack the expert groups to nodes evenly ..., replicate the experts within each node,
// pack the replicated experts to individual GPUs" (prefill). Every group and all its replicas stay
// on one node. Requires shape.groups % shape.nodes == 0.
SlotRow place_layer_hierarchical(std::span<const TokenCount> weights, const DeploymentShape& shape);

// DeepSeek's EPLB itself [deepseek-eplb], re-implemented to serve as the reference: the same steps,
// the same tie rules (first index on ties, a stable sort where eplb.py's sort is unstable), exact
// comparisons where eplb.py uses float32. `hierarchical` false runs it with one group and one node.
SlotRow place_layer_reference_eplb(std::span<const TokenCount> weights, const DeploymentShape& shape,
                                   bool hierarchical);

}  // namespace moeplan::eplb
