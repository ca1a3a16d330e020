#include "eplb/placement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "io/input_error.hpp"

namespace moeplan::eplb {

std::vector<std::int64_t> replica_counts(const SlotRow& row, std::int64_t experts) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(experts), 0);
  for (const auto expert : row) ++counts[expert];
  return counts;
}

std::vector<std::vector<std::int32_t>> logical_to_physical(const SlotRow& row, std::int64_t experts,
                                                           std::int64_t width) {
  std::vector<std::vector<std::int32_t>> slots(static_cast<std::size_t>(experts));
  for (std::size_t slot = 0; slot < row.size(); ++slot) slots[row[slot]].push_back(static_cast<std::int32_t>(slot));
  for (auto& expert_slots : slots) expert_slots.resize(static_cast<std::size_t>(width), -1);
  return slots;
}

std::int64_t max_replicas(const Placement& placement) {
  std::int64_t widest = 1;
  for (const auto& row : placement.physical_to_logical) {
    const auto counts = replica_counts(row, placement.shape.experts);
    widest = std::max(widest, *std::max_element(counts.begin(), counts.end()));
  }
  return widest;
}

SlotRow trivial_row(const DeploymentShape& shape) {
  SlotRow row(static_cast<std::size_t>(shape.slots));
  for (std::size_t slot = 0; slot < row.size(); ++slot)
    row[slot] = static_cast<std::int32_t>(static_cast<std::int64_t>(slot) % shape.experts);
  return row;
}

Placement trivial_placement(const DeploymentShape& shape, std::int64_t layers) {
  return {shape, std::vector<SlotRow>(static_cast<std::size_t>(layers), trivial_row(shape))};
}

void order_slots_within_gpus(SlotRow& row, const DeploymentShape& shape) {
  for (auto first = row.begin(); first != row.end(); first += shape.slots_per_gpu()) {
    std::sort(first, first + shape.slots_per_gpu());
  }
}

void validate_placement(const Placement& placement, const std::string& file) {
  const auto& shape = placement.shape;
  for (std::size_t layer = 0; layer < placement.physical_to_logical.size(); ++layer) {
    const auto& row = placement.physical_to_logical[layer];
    const std::string key = fmt::format("phy2log[{}]", layer);
    if (static_cast<std::int64_t>(row.size()) != shape.slots) {
      throw InputError(file, key, fmt::format("{} slots, got {}", shape.slots, row.size()));
    }
    for (const auto expert : row) {
      if (expert < 0 || expert >= shape.experts) {
        throw InputError(file, key, fmt::format("expert ids in [0, {}), got {}", shape.experts, expert));
      }
    }
    const auto counts = replica_counts(row, shape.experts);
    const auto missing = std::find(counts.begin(), counts.end(), 0);
    if (missing != counts.end()) {
      throw InputError(file, key,
                       fmt::format("every expert at least once; expert {} has no slot", missing - counts.begin()));
    }
  }
}

}  // namespace moeplan::eplb
