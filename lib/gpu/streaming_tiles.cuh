#pragma once
// Which tile of the streaming GEMM (gpu/streaming_gemm.hpp) a CTA runs, on which k blocks, and the
// token rows it multiplies. Internal to streaming_gemm.cu, its only includer.
#include "gpu/streaming_gemm.hpp"
#include "gpu/streaming_stage.cuh"
#include "moe_reference/tail_split.hpp"

namespace moeplan::gpu {
namespace {

// One CTA's work (k blocks, split slot) on its tile: the 64 weight rows per warpgroup of row_tile
// against aligned block `block`.
struct Segment {
  int block, row_tile;
  moe_reference::TileWork work;
};

// Tiles run in groups of kRowTileGroup row tiles: a group's tiles of one block next to each other, then
// the next block's. The CTAs sharing a block's token rows run together, so that those rows are read from
// L2 while they are there (with every block of one row tile next to each other, a block's CTAs ran the
// launch's blocks apart, and at hundreds of blocks the streamed weights evicted its rows between them);
// the blocks of one expert still read the same weight rows close together.
constexpr int kRowTileGroup = 32;

// `block` counts the launch's blocks in order: every used block, or the running ones.
__device__ Segment segment_of(const moe_reference::TileWork& work, int used_blocks, int row_tiles) {
  const int group_tiles = used_blocks * kRowTileGroup;
  const int group = work.tile / group_tiles;
  const int width = min(kRowTileGroup, row_tiles - group * kRowTileGroup);
  const int within = work.tile - group * group_tiles;
  return {within / width, group * kRowTileGroup + within % width, work};
}

// The rows of aligned block `block`: its entries come first, then padding.
__device__ int block_rows_in_use(const StreamingBlocks& blocks, int block) {
  const int lane = threadIdx.x % 32;
  const std::int32_t* entries = blocks.sorted_entries + static_cast<long>(block) * kStreamingBlockRows;
  return __popc(__ballot_sync(0xFFFFFFFFu, entries[lane] >= 0)) +
         __popc(__ballot_sync(0xFFFFFFFFu, entries[lane + 32] >= 0));
}

// The CTA's segment, its local expert and the rows it multiplies (moe/tail_split.hpp), or false
// where the launch has less work than CTAs. Riding: the launch runs align's running blocks, each with
// the rows that ride with it (moe/riding_rows.hpp), so that the tail split deals out only tiles that
// stream weights; else every used block. CTA tiles hold WeightRows weight rows. Either way a CTA finds
// its block in two dependent loads, the count of blocks and then the block's record (or its expert and
// entries): a third, looking the expert's count up from a bare list of blocks, cost up to 0.036 of copy
// bandwidth at 32-256 tokens on H200.
template <bool Riding, int WeightRows>
__device__ bool find_segment(const StreamingParams& params, Segment& segment, int& expert, int& valid) {
  const StreamingBlocks& blocks = params.blocks;
  const int used_blocks = Riding ? *blocks.running_count : *blocks.padded_rows / kStreamingBlockRows;
  if (used_blocks > blocks.max_blocks) __trap();  // the launcher promised fewer blocks
  const int row_tiles = params.weight_rows / WeightRows;
  moe_reference::TileWork work;
  if (!moe_reference::tail_split_work(blockIdx.x, used_blocks * row_tiles, params.wave,
                                      params.reduction / moe_reference::kScaleBlock, work)) {
    return false;
  }
  segment = segment_of(work, used_blocks, row_tiles);
  if constexpr (Riding) {
    const moe_reference::RunningBlock running = blocks.running_blocks[segment.block];
    segment.block = running.block;
    expert = running.expert;
    valid = running.rows;
  } else {
    expert = blocks.block_experts[segment.block];
    valid = block_rows_in_use(blocks, segment.block);
  }
  if (expert < 0 || valid < 1 || valid > params.staged_rows) __trap();  // not a used block, or too many rows
  return true;
}

}  // namespace
}  // namespace moeplan::gpu
