#pragma once
// The streaming GEMM's staging (gpu/streaming_gemm.hpp): the launch's parameters, the layout of one
// staging buffer, and the producer warps that fill the buffers in turn, a 128-deep scale block of the
// weights by TMA and of the token rows by cp.async. Internal to streaming_gemm.cu, its only includer.
#include <cstdint>

#include <cuda.h>

#include "gpu/async_copy.cuh"
#include "gpu/expert_weights_view.hpp"
#include "gpu/streaming_gemm.hpp"
#include "gpu/tma_copy.cuh"
#include "gpu/wgmma.cuh"
#include "moe_reference/fp8_format.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kWarpgroupThreads = 128;
constexpr int kWarpgroupRows = 64;  // wgmma m: the weight rows one warpgroup streams
constexpr int kTileRows = 8;        // token rows of one accumulator column group
constexpr int kChunkBytes = 16;     // one cp.async, one swizzled chunk
constexpr int kMostStages = 16;     // staging buffers a CTA may cycle through

struct StreamingParams {
  CUtensorMap weight_map;       // the weights, in boxes of kTileRows rows (gated) or of a CTA's rows
  const std::uint8_t* source;   // rows the GEMM reads: hidden states (gathered) or activation rows
  const float* source_scales;   // e4m3 token groups: [source rows][reduction / 128]
  int gather_top_k;             // > 0: source row = entry / top_k; 0: source row = aligned row
  StreamingBlocks blocks;       // align's, on the device
  int wave;                     // CTAs the SMs hold at once (moe/tail_split.hpp)
  const std::uint8_t* weights;  // [experts][weight_rows][reduction]
  int experts;
  const float* scales;
  int reduction;    // K: hidden for w13, intermediate for w2
  int weight_rows;  // N per expert: 2I for w13, hidden for w2
  int up_offset;    // gated: the first up row (I)
  std::uint16_t* output;
  int output_width;
  int staged_rows;  // token rows each staging buffer holds: 8, 16, 32 or 64, at least any block's
  int stages;       // staging buffers per CTA: as many as its share of the multiprocessor's shared memory holds
  StreamingWorkspace workspace;
};

// One staging buffer: a scale block (128 elements of k) of the CTA's weight rows (64 per warpgroup),
// then of its token rows, each a region of 128-byte swizzled lines (e4m3: one line a row; bf16: two,
// the second line of every row after the first lines of all rows); then, for e4m3 token groups, their
// scales.
template <WeightFormat Format, int Warpgroups>
struct Stage {
  static constexpr bool kScaledTokens = Format == WeightFormat::fp8_block_scaled;
  static constexpr int kThreads = Warpgroups * kWarpgroupThreads;  // the consumers, which multiply
  // and the producer warps after them: two, where one could not stage a block's token rows (64 bf16
  // rows, 32 or 64 e4m3 rows for paired warpgroups) as fast as the consumers take them.
  static constexpr int kProducerThreads = kScaledTokens && Warpgroups == 1 ? 32 : 64;
  static constexpr int kCtaThreads = kThreads + kProducerThreads;
  static constexpr int kWeightRows = Warpgroups * kWarpgroupRows;
  static constexpr int kElementBytes = kScaledTokens ? 1 : 2;
  static constexpr int kLines = moe_reference::kScaleBlock * kElementBytes / kSwizzleBytes;  // a row's lines
  static constexpr int kChunks = kLines * kSwizzleBytes / kChunkBytes;                       // a row's chunks
  static constexpr int kWeightBytes = kLines * kWeightRows * kSwizzleBytes;
  static constexpr int kBlocksPerSm = 4 / Warpgroups;  // CTAs per SM: 80 (bf16) or 96 registers a thread (ptxas -v)
  // bf16 boxes come two lines of a row's 256 bytes at once, and stream faster without a promotion
  // (`moeplan-moe-bench stream` on H200; decode points +0.03 on H200, -0.01 on H100); an e4m3 box is one
  // line of a row, and promoting it fetches the next block's line with it (without: -0.008 on H200).
  static constexpr int kL2PromotionBytes = kScaledTokens ? 256 : 0;

  __host__ __device__ static constexpr int token_bytes(int rows) { return kLines * rows * kSwizzleBytes; }
  // A buffer's weights and token rows: whole atoms at 8, 16, 32 or 64 rows, so every buffer's regions
  // start 1024-byte aligned.
  __host__ __device__ static constexpr int bytes(int rows) { return kWeightBytes + token_bytes(rows); }
  // e4m3 token groups' scales, a float per row, kept after all the buffers: inside each they would
  // round it up by an atom.
  __host__ __device__ static constexpr int scale_bytes(int rows) {
    return kScaledTokens ? rows * static_cast<int>(sizeof(float)) : 0;
  }
  // e4m3 weight scales of the segment's k blocks, after the token scales: a row of them for the CTA's
  // gate (or only) rows and one for its up rows.
  __host__ __device__ static constexpr int segment_scale_bytes(int reduction) {
    return kScaledTokens ? 2 * (reduction / moe_reference::kScaleBlock) * static_cast<int>(sizeof(float)) : 0;
  }
};

__device__ int source_row(const StreamingParams& params, int block, int row) {
  if (params.gather_top_k > 0) {
    return params.blocks.sorted_entries[block * kStreamingBlockRows + row] / params.gather_top_k;
  }
  return block * kStreamingBlockRows + row;
}

// The weight row behind the CTA's row m. Gated: rows 16w .. 16w+7 of warp w are gate rows and
// 16w+8 .. 16w+15 the up rows of the same features, so a thread holds both halves of its features
// ([doc-002]: SiLU-and-mul in GEMM1's epilogue).
template <bool Gated>
__device__ int weight_row(const StreamingParams& params, int row_tile, int m) {
  if constexpr (Gated) {
    const int feature = row_tile * (kWarpgroupRows / 2) + m / 16 * 8 + m % 8;
    return m % 16 < 8 ? feature : params.up_offset + feature;
  }
  return row_tile * kWarpgroupRows + m;
}

// A producer thread's share of a block's token rows at N staged rows: chunk p % Chunks of rows
// p / Chunks + i * Producers / Chunks (eight neighbouring lanes copy one row's 128-byte line: whole
// lines from memory, eight distinct banks in shared memory). Found once a segment, so that each
// block's copy is an address multiply-add and a cp.async.
template <int Chunks, int N, int Producers>
struct TokenCopies {
  static_assert(Producers % Chunks == 0, "a thread copies one chunk of its rows");
  static constexpr int kSteps = (N * Chunks + Producers - 1) / Producers;
  int source_row[kSteps];        // -1: past the block's valid rows
  std::uint32_t target[kSteps];  // bytes into the buffer's token region
};

template <int Chunks, int N, int Producers>
__device__ TokenCopies<Chunks, N, Producers> token_copies(const int* source_rows, int region_rows, int valid,
                                                          int producer) {
  constexpr int kLineChunks = kSwizzleBytes / kChunkBytes;
  const int chunk = producer % Chunks;
  TokenCopies<Chunks, N, Producers> copies;
#pragma unroll
  for (int step = 0; step < TokenCopies<Chunks, N, Producers>::kSteps; ++step) {
    const int row = producer / Chunks + step * (Producers / Chunks);
    copies.source_row[step] = row < valid ? source_rows[row] : -1;
    copies.target[step] = chunk / kLineChunks * region_rows * kSwizzleBytes + swizzled_offset(row, chunk % kLineChunks);
  }
  return copies;
}

// The weights of a scale block by TMA, one box per line (on the first producer's lanes), landing on
// `landed`. row_tile: the CTA's first warpgroup tile; each warpgroup's 64 rows follow the previous
// one's, in the order weight_row gives (the map's gate_up boxes).
template <WeightFormat Format, bool Gated, int Warpgroups>
__device__ void stage_weights(std::uint8_t* buffer, std::uint64_t* landed, const StreamingParams& params, int expert,
                              int row_tile, int scale_block, int lane) {
  using S = Stage<Format, Warpgroups>;
  constexpr int kGroupRows = Gated ? 2 * kTileRows : kTileRows;  // rows per group of the map
  if (lane == 0) arrive_expecting(landed, S::kWeightBytes);
  __syncwarp();
  if (lane >= S::kLines) return;
  const int k = scale_block * moe_reference::kScaleBlock + lane * kSwizzleBytes / S::kElementBytes;
  copy_box(buffer + lane * S::kWeightRows * kSwizzleBytes, &params.weight_map, k,
           row_tile * kWarpgroupRows / kGroupRows, expert, landed);
}

// A scale block of the weights (TMA) and of the token rows (cp.async; e4m3: their scales into
// token_scales), all landing on `landed`: its phase completes when the boxes' bytes and every
// producer's copies are in (kProducerThreads + 1 arrivals).
template <WeightFormat Format, bool Gated, int Warpgroups, int N>
__device__ void stage_block(
    std::uint8_t* buffer, float* token_scales, std::uint64_t* landed, const StreamingParams& params,
    const TokenCopies<Stage<Format, Warpgroups>::kChunks, N, Stage<Format, Warpgroups>::kProducerThreads>& copies,
    const int* source_rows, int expert, int row_tile, int valid, int scale_block, int producer) {
  using S = Stage<Format, Warpgroups>;
  if (producer < 32)
    stage_weights<Format, Gated, Warpgroups>(buffer, landed, params, expert, row_tile, scale_block, producer);
  const long row_bytes = static_cast<long>(params.reduction) * S::kElementBytes;
  const std::uint8_t* tokens = params.source +
                               static_cast<long>(scale_block) * moe_reference::kScaleBlock * S::kElementBytes +
                               kChunkBytes * (producer % S::kChunks);
  std::uint8_t* const token_region = buffer + S::kWeightBytes;
#pragma unroll
  for (int step = 0; step < TokenCopies<S::kChunks, N, S::kProducerThreads>::kSteps; ++step) {
    if (copies.source_row[step] >= 0) {
      copy_async_16(token_region + copies.target[step], tokens + copies.source_row[step] * row_bytes);
    }
  }
  if constexpr (S::kScaledTokens) {
    const int groups = params.reduction / moe_reference::kScaleBlock;
    for (int row = producer; row < valid; row += S::kProducerThreads) {
      copy_async_4(token_scales + row,
                   params.source_scales + static_cast<long>(source_rows[row]) * groups + scale_block);
    }
  }
  arrive_when_copies_land(landed);
}

// The scales of the 128x128 weight blocks holding `row`, one per block of k: scales are
// [experts][rows / 128][K / 128].
__device__ const float* weight_scales(const StreamingParams& params, int expert, int row) {
  const int blocks = params.reduction / moe_reference::kScaleBlock;
  const long block_row =
      static_cast<long>(expert) * (params.weight_rows / moe_reference::kScaleBlock) + row / moe_reference::kScaleBlock;
  return params.scales + block_row * blocks;
}

// e4m3: the weight scales of blocks first .. last - 1 for the CTA's rows into segment_scales
// ([2][last - first]: gate or only rows, then up rows), landing with the first block. Every row of a
// CTA's tile lies in one 128-row scale block (two, gate and up, when gated), so these are all its
// scales, and the consumers' loop reads no global memory.
template <bool Gated>
__device__ void stage_segment_scales(float* segment_scales, const StreamingParams& params, int expert, int row_tile,
                                     int first, int last, int producer, int producers) {
  const int count = last - first;
  const float* const rows[2] = {weight_scales(params, expert, weight_row<Gated>(params, row_tile, 0)),
                                weight_scales(params, expert, weight_row<Gated>(params, row_tile, kTileRows))};
  for (int index = producer; index < 2 * count; index += producers) {
    copy_async_4(segment_scales + index, rows[index / count] + first + index % count);
  }
}

// Per staging buffer: `landed` completes a phase when a block is in it, `freed` when every consumer warp
// is done with it.
struct BufferBarriers {
  std::uint64_t* landed;
  std::uint64_t* freed;
};

// The producer warps: stage blocks first .. last - 1 into the buffers in turn, each once the consumers
// have freed its previous block, so they run up to params.stages blocks ahead of them and never wait
// on a CTA barrier. Block i uses buffer i % stages in its (i / stages)-th phase.
template <WeightFormat Format, bool Gated, int Warpgroups, int N>
__device__ void produce_blocks(const StreamingParams& params, std::uint8_t* staged, BufferBarriers barriers,
                               const int* source_rows, int expert, int row_tile, int valid, int first, int last) {
  using S = Stage<Format, Warpgroups>;
  const int buffer_bytes = S::bytes(params.staged_rows);
  float* const token_scales = reinterpret_cast<float*>(staged + params.stages * buffer_bytes);
  const int producer = threadIdx.x - S::kThreads;
  const auto copies =
      token_copies<S::kChunks, N, S::kProducerThreads>(source_rows, params.staged_rows, valid, producer);
  if constexpr (S::kScaledTokens) {
    float* const segment_scales = token_scales + params.stages * params.staged_rows;
    stage_segment_scales<Gated>(segment_scales, params, expert, row_tile, first, last, producer, S::kProducerThreads);
  }
  int buffer = 0, parity = 0;
  for (int block = first; block < last; ++block) {
    if (block - first >= params.stages) wait_phase(barriers.freed + buffer, parity ^ 1);
    stage_block<Format, Gated, Warpgroups, N>(staged + buffer * buffer_bytes,
                                              token_scales + buffer * params.staged_rows, barriers.landed + buffer,
                                              params, copies, source_rows, expert, row_tile, valid, block, producer);
    if (++buffer == params.stages) {
      buffer = 0;
      parity ^= 1;
    }
  }
  wait_all_copies();
}

}  // namespace
}  // namespace moeplan::gpu
