#pragma once
// Device dispatch: entries permuted by local expert into block-aligned segments, as
// lib/moe_reference/alignment.hpp lays them out (the order inside one expert's segment may differ).
#include <cstdint>

#include <cuda_runtime.h>

#include "moe_reference/riding_rows.hpp"

namespace moeplan::gpu {

constexpr int kMaxLocalExperts = 1024;

struct AlignmentBuffers {
  std::int32_t* expert_counts = nullptr;    // [local experts]
  std::int32_t* expert_offsets = nullptr;   // [local experts + 1]
  std::int32_t* sorted_entries = nullptr;   // [max_blocks * block_size], padding -1
  std::int32_t* block_experts = nullptr;    // [max_blocks], -1 past the last used block
  std::int32_t* entry_positions = nullptr;  // [entries], -1 for entries other ranks hold
  moe_reference::RunningBlock* running_blocks =
      nullptr;                            // [max_blocks], the blocks that run a tile (moe/riding_rows.hpp)
  std::int32_t* running_count = nullptr;  // [1], how many of them
};

// riding_rows: the most rows an expert's last block may hold to ride with the block before it.
void launch_align(const std::int32_t* expert_ids, int num_entries, const std::int32_t* global_to_local,
                  int num_local_experts, int block_size, int riding_rows, int max_blocks, AlignmentBuffers buffers,
                  cudaStream_t stream);

}  // namespace moeplan::gpu
