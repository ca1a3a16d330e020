#include "moe_reference/expert_parallel.hpp"

#include <stdexcept>

namespace moeplan::moe_reference {
namespace {

int physical_routed_slots(const ExpertParallelConfig& config) {
  return config.routed_experts + config.redundant_experts;
}

void validate(const ExpertParallelConfig& config) {
  if (config.ep_size <= 0 || config.ep_rank < 0 || config.ep_rank >= config.ep_size || config.routed_experts <= 0 ||
      config.redundant_experts < 0 || config.fused_shared < 0) {
    throw std::invalid_argument("expert parallel: need 0 <= ep_rank < ep_size and non-negative expert counts");
  }
  // [doc-002]: assert (num_experts - num_shared_slots) % moe_ep_size == 0
  if (physical_routed_slots(config) % config.ep_size != 0) {
    throw std::invalid_argument("expert parallel: routed + redundant slots must divide evenly over ep_size");
  }
}

}  // namespace

int local_expert_count(const ExpertParallelConfig& config) {
  validate(config);
  return physical_routed_slots(config) / config.ep_size + config.fused_shared;
}

int first_shared_id(const ExpertParallelConfig& config) { return physical_routed_slots(config); }

int global_expert_count(const ExpertParallelConfig& config) {
  return physical_routed_slots(config) + config.fused_shared;
}

std::vector<std::int32_t> global_to_local_map(const ExpertParallelConfig& config) {
  const int local_routed = local_expert_count(config) - config.fused_shared;
  std::vector<std::int32_t> map(static_cast<std::size_t>(global_expert_count(config)), -1);
  const int first_routed = config.ep_rank * local_routed;
  for (int slot = 0; slot < local_routed; ++slot)
    map[static_cast<std::size_t>(first_routed) + static_cast<std::size_t>(slot)] = slot;
  for (int replica = 0; replica < config.fused_shared; ++replica) {
    map[static_cast<std::size_t>(first_shared_id(config)) + static_cast<std::size_t>(replica)] = local_routed + replica;
  }
  return map;
}

}  // namespace moeplan::moe_reference
