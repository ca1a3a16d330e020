#pragma once
// Where experts live: nodes, GPUs (the total over all nodes), physical expert slots per layer and
// expert groups. Slot p sits on GPU p / slots_per_gpu, GPU g on node g / gpus_per_node [deepseek-eplb].
#include <cstdint>
#include <string>

namespace moeplan::eplb {

struct DeploymentShape {
  std::int64_t nodes = 1;
  std::int64_t gpus = 1;     // total over all nodes
  std::int64_t slots = 1;    // physical expert slots per MoE layer (experts + redundant)
  std::int64_t experts = 1;  // logical experts per MoE layer
  std::int64_t groups = 1;   // expert groups ([doc-001]: DeepSeek-V3 has 8 groups of 32)

  std::int64_t slots_per_gpu() const { return slots / gpus; }
  std::int64_t gpus_per_node() const { return gpus / nodes; }
  std::int64_t experts_per_group() const { return experts / groups; }
  std::int64_t gpu_of_slot(std::int64_t slot) const { return slot / slots_per_gpu(); }
  std::int64_t node_of_gpu(std::int64_t gpu) const { return gpu / gpus_per_node(); }
};

// Checks the divisibility rules; throws InputError naming `source` (the file or "command line")
// and the offending option.
void validate_shape(const DeploymentShape& shape, const std::string& source);

}  // namespace moeplan::eplb
