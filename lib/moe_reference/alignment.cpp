#include "moe_reference/alignment.hpp"

#include <algorithm>
#include <stdexcept>

namespace moeplan::moe_reference {

Alignment align_by_expert(std::span<const std::int32_t> expert_ids, std::span<const std::int32_t> global_to_local,
                          int num_local_experts, int block_size) {
  if (block_size <= 0 || num_local_experts <= 0) throw std::invalid_argument("alignment: positive block and experts");
  Alignment alignment;
  alignment.block_size = block_size;
  alignment.num_local_experts = num_local_experts;
  alignment.expert_counts.assign(static_cast<std::size_t>(num_local_experts), 0);
  std::vector<std::int32_t> local_of_entry(expert_ids.size(), -1);
  for (std::size_t entry = 0; entry < expert_ids.size(); ++entry) {
    const std::int32_t global = expert_ids[entry];
    if (global < 0 || static_cast<std::size_t>(global) >= global_to_local.size()) {
      throw std::out_of_range("alignment: expert id outside the global id space");
    }
    local_of_entry[entry] = global_to_local[static_cast<std::size_t>(global)];
    if (local_of_entry[entry] >= 0) ++alignment.expert_counts[static_cast<std::size_t>(local_of_entry[entry])];
  }
  alignment.expert_offsets.assign(static_cast<std::size_t>(num_local_experts) + 1, 0);
  for (int expert = 0; expert < num_local_experts; ++expert) {
    const int count = alignment.expert_counts[static_cast<std::size_t>(expert)];
    const int padded = (count + block_size - 1) / block_size * block_size;
    alignment.expert_offsets[static_cast<std::size_t>(expert) + 1] =
        alignment.expert_offsets[static_cast<std::size_t>(expert)] + padded;
    alignment.block_experts.insert(alignment.block_experts.end(), static_cast<std::size_t>(padded / block_size),
                                   expert);
  }
  alignment.sorted_entries.assign(static_cast<std::size_t>(alignment.padded_rows()), kPaddingEntry);
  alignment.entry_positions.assign(expert_ids.size(), -1);
  std::vector<std::int32_t> cursor(alignment.expert_offsets.begin(), alignment.expert_offsets.end() - 1);
  for (std::size_t entry = 0; entry < expert_ids.size(); ++entry) {
    const std::int32_t local = local_of_entry[entry];
    if (local < 0) continue;
    const std::int32_t row = cursor[static_cast<std::size_t>(local)]++;
    alignment.sorted_entries[static_cast<std::size_t>(row)] = static_cast<std::int32_t>(entry);
    alignment.entry_positions[entry] = row;
  }
  return alignment;
}

std::vector<RunningBlock> running_blocks(const Alignment& alignment, int riding_rows) {
  std::vector<RunningBlock> blocks;
  for (int expert = 0; expert < alignment.num_local_experts; ++expert) {
    const int first = alignment.expert_offsets[static_cast<std::size_t>(expert)] / alignment.block_size;
    const int count = alignment.expert_counts[static_cast<std::size_t>(expert)];
    for (int index = 0; index < running_blocks_of(count, alignment.block_size, riding_rows); ++index) {
      blocks.push_back({first + index, expert, rows_of_block(count, index, alignment.block_size, riding_rows)});
    }
  }
  return blocks;
}

int max_aligned_blocks(int entries, int experts, int block_size) {
  return (entries + block_size - 1) / block_size + std::min(experts, entries);
}

}  // namespace moeplan::moe_reference
