#pragma once
// Dispatch on one rank [doc-002]: the (token, slot) entries routed to local experts, permuted so
// that each expert's rows are contiguous and each expert's segment starts on a block boundary,
// the layout a grouped GEMM walks block by block.
#include <cstdint>
#include <span>
#include <vector>

#include "moe_reference/riding_rows.hpp"

namespace moeplan::moe_reference {

constexpr std::int32_t kPaddingEntry = -1;

struct Alignment {
  int block_size = 0;
  int num_local_experts = 0;
  std::vector<std::int32_t> expert_counts;    // [experts] entries routed to each local expert
  std::vector<std::int32_t> expert_offsets;   // [experts + 1] first padded row of each expert
  std::vector<std::int32_t> sorted_entries;   // [padded rows] entry (token * top_k + slot) or padding
  std::vector<std::int32_t> block_experts;    // [padded rows / block_size] the expert of each block
  std::vector<std::int32_t> entry_positions;  // [entries] row of each entry, -1 when not local

  int padded_rows() const { return expert_offsets.back(); }
};

// Rounds each expert's count up to a whole number of blocks; within an expert, entries keep
// their order. expert_ids holds global ids; global_to_local maps them to local slots or -1.
Alignment align_by_expert(std::span<const std::int32_t> expert_ids, std::span<const std::int32_t> global_to_local,
                          int num_local_experts, int block_size);

// The running blocks in order: every block but a riding last one of its expert.
std::vector<RunningBlock> running_blocks(const Alignment& alignment, int riding_rows);

// The most blocks any routing of `entries` entries over `experts` experts can need: each
// non-empty expert wastes less than one block, so ceil(entries / block) + min(experts, entries).
int max_aligned_blocks(int entries, int experts, int block_size);

}  // namespace moeplan::moe_reference
