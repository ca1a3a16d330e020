#include "gpu/streaming_gemm.hpp"

#include <cuda_bf16.h>

#include <algorithm>
#include <stdexcept>

#include "gpu/async_copy.cuh"
#include "gpu/cuda_check.hpp"
#include "gpu/device_attribute.hpp"
#include "gpu/kernel_shared_memory.hpp"
#include "gpu/partial_sums.cuh"
#include "gpu/streaming_stage.cuh"
#include "gpu/streaming_tiles.cuh"
#include "gpu/tensor_map.hpp"
#include "gpu/tma_copy.cuh"
#include "gpu/wgmma.cuh"
#include "moe_reference/fp8_format.hpp"

namespace moeplan::gpu {
namespace {

// From 32 token rows up, two warpgroups of an e4m3 launch share each staged block of token rows: alone,
// a warpgroup copies as many token bytes (from L2) as weight bytes at 64 rows. bf16 stays single: its
// paired stages (48 KB) leave one CTA per SM, which streamed at 36-66 % of copy bandwidth on H200.
constexpr int kPairedLeastRows = 32;
constexpr int kMostWarpgroups = 2;
static_assert(kStreamingSlotValues == kMostWarpgroups * kWarpgroupThreads * (kStreamingBlockRows + kRidingRows) / 2,
              "a slot holds a CTA's fp32 sums at N = 64 + kRidingRows");

// Where an expert's rows just pass a multiple of 64 (at 64 rows per expert on average, half the experts),
// its last block holds a few rows whose CTAs would stream the expert's weights again. In e4m3's paired
// launches up to kRidingRows of them ride with the expert's block before them, as that block's rows
// 64 .. 64 + kRidingRows - 1 (the aligned layout keeps them next in order), and their own block runs no
// tile (moe/riding_rows.hpp; align lists the blocks that run). On 1xH200, Mixtral's 256 tokens and
// Qwen3-235B's 1024 rose from 0.58 and 0.72 of copy bandwidth to 0.79 (weaker GEMM; the other FP8
// decode points within -0.008 to +0.015).
template <WeightFormat Format, int Warpgroups>
constexpr bool rows_ride() {
  return Format == WeightFormat::fp8_block_scaled && Warpgroups == kMostWarpgroups;
}

__device__ float silu(float x) { return x / (1.0f + __expf(-x)); }

__device__ std::uint16_t bf16_bits_of(float value) { return __bfloat16_as_ushort(__float2bfloat16_rn(value)); }

// One wgmma step over N token rows: 8, 16, 32 or 64, or 64 and the riding rows after them (e4m3: one
// 128-byte line a row) in two instructions.
template <bool ScaledTokens, int N>
__device__ void multiply_step(float (&d)[N / 2], std::uint64_t a, std::uint64_t b, int accumulate) {
  if constexpr (N > kStreamingBlockRows) {
    constexpr int kRest = N - kStreamingBlockRows;
    multiply_step<ScaledTokens, kStreamingBlockRows>(*reinterpret_cast<float(*)[kStreamingBlockRows / 2]>(d), a, b,
                                                     accumulate);
    multiply_step<ScaledTokens, kRest>(*reinterpret_cast<float(*)[kRest / 2]>(d + kStreamingBlockRows / 2), a,
                                       descriptor_advanced(b, kStreamingBlockRows * kSwizzleBytes), accumulate);
  } else if constexpr (ScaledTokens) {
    wgmma_e4m3<N>(d, a, b, accumulate);
  } else {
    wgmma_bf16<N>(d, a, b, accumulate);
  }
}

// One staged scale block: this warpgroup's wgmma over its k, 32 bytes at a time, each step starting
// that far into the rows' line. weights, tokens: descriptors of the buffer's first line of this
// warpgroup's weight rows and of the token rows. accumulate = 0 starts the sums afresh (e4m3: a
// partial per block, scaled before it joins the fp32 sums).
template <WeightFormat Format, int Warpgroups, int N>
__device__ void multiply_block(std::uint64_t weights, std::uint64_t tokens, int token_line_bytes, float (&d)[N / 2],
                               int accumulate) {
  using S = Stage<Format, Warpgroups>;
  constexpr int kStepBytes = 32;
  wgmma_fence();
#pragma unroll
  for (int step = 0; step < S::kLines * kSwizzleBytes / kStepBytes; ++step) {
    const int line = step * kStepBytes / kSwizzleBytes, offset = step * kStepBytes % kSwizzleBytes;
    const std::uint64_t a = descriptor_advanced(weights, line * S::kWeightRows * kSwizzleBytes + offset);
    const std::uint64_t b = descriptor_advanced(tokens, line * token_line_bytes + offset);
    multiply_step<S::kScaledTokens, N>(d, a, b, accumulate | step);
  }
  wgmma_commit();
}

// DeepGEMM's promotion [deepgemm]: each 128-deep e4m3 partial joins the fp32 sums times its
// weight block's scale (rows a, b) and each token group's scale (columns).
template <int N>
__device__ void promote(const float (&partial)[N / 2], const float* token_scales, float scale_a, float scale_b,
                        int quad, float (&sums)[N / 2]) {
#pragma unroll
  for (int group = 0; group < N / kTileRows; ++group) {
    const float2 token = *reinterpret_cast<const float2*>(token_scales + group * kTileRows + 2 * quad);
    sums[4 * group + 0] += scale_a * token.x * partial[4 * group + 0];
    sums[4 * group + 1] += scale_a * token.y * partial[4 * group + 1];
    sums[4 * group + 2] += scale_b * token.x * partial[4 * group + 2];
    sums[4 * group + 3] += scale_b * token.y * partial[4 * group + 3];
  }
}

template <bool Gated>
__device__ void store_group(const StreamingParams& params, const float* result, int block, int group, int valid,
                            int row_a, int row_b) {
  const int quad = threadIdx.x % 4;
  for (int column = 0; column < 2; ++column) {
    const int row = group * kTileRows + 2 * quad + column;
    if (row >= valid) continue;
    std::uint16_t* out = params.output + (static_cast<long>(block) * kStreamingBlockRows + row) * params.output_width;
    if constexpr (Gated) {
      // [doc-002]: SiLU-and-mul; row_a holds the gate feature, row_b the up feature of the same index.
      out[row_a] = bf16_bits_of(silu(result[column]) * result[2 + column]);
    } else {
      out[row_a] = bf16_bits_of(result[column]);
      out[row_b] = bf16_bits_of(result[2 + column]);
    }
  }
}

// The consumers' side of the segment against N token rows: each block, once landed, is multiplied
// (e4m3: its partial promoted) and freed for the producer warps; the consumers never meet at a CTA
// barrier. The pieces of a split tile add up their partial sums first; the last to finish writes the tile.
template <WeightFormat Format, bool Gated, int Warpgroups, int N>
__device__ void consume_segment(const StreamingParams& params, std::uint8_t* staged, BufferBarriers barriers, int valid,
                                const Segment& segment) {
  using S = Stage<Format, Warpgroups>;
  const int buffer_bytes = S::bytes(params.staged_rows);
  const int stages = params.stages;
  const int first_tile = segment.row_tile * Warpgroups;
  const float* const token_scales = reinterpret_cast<const float*>(staged + stages * buffer_bytes);
  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  const int warp = threadIdx.x % kWarpgroupThreads / 32, group = threadIdx.x % 32 / 4, quad = threadIdx.x % 4;
  const int row_a = weight_row<Gated>(params, first_tile + warpgroup, 16 * warp + group);
  const int row_b = weight_row<Gated>(params, first_tile + warpgroup, 16 * warp + group + kTileRows);
  const std::uint64_t first_weights = swizzled_descriptor(staged + warpgroup * kWarpgroupRows * kSwizzleBytes);
  const std::uint64_t first_tokens = swizzled_descriptor(staged + S::kWeightBytes);
  // e4m3: the segment's weight scales from its first block on (gpu/streaming_stage.cuh), row b's the up
  // rows' when gated.
  const float* const scales_a = token_scales + stages * params.staged_rows;
  const float* const scales_b = scales_a + (Gated ? segment.work.last - segment.work.first : 0);
  float sums[N / 2] = {};
  float partial[N / 2];
  // Block i of the segment uses buffer i % stages, in that buffer's (i / stages)-th phase.
  int buffer = 0, parity = 0;
  for (int block = segment.work.first; block < segment.work.last; ++block) {
    wait_phase(barriers.landed + buffer, parity);
    // The producer's cp.async rows, seen through the barrier, made visible to wgmma's reads.
    fence_proxy_async();
    const int buffer_offset = buffer * buffer_bytes;
    const std::uint64_t weights = descriptor_advanced(first_weights, buffer_offset);
    const std::uint64_t tokens = descriptor_advanced(first_tokens, buffer_offset);
    if constexpr (S::kScaledTokens) {
      multiply_block<Format, Warpgroups, N>(weights, tokens, params.staged_rows * kSwizzleBytes, partial, 0);
    } else {
      multiply_block<Format, Warpgroups, N>(weights, tokens, params.staged_rows * kSwizzleBytes, sums, 1);
    }
    wgmma_wait_all();
    if constexpr (S::kScaledTokens) {
      promote<N>(partial, token_scales + buffer * params.staged_rows, scales_a[block - segment.work.first],
                 scales_b[block - segment.work.first], quad, sums);
    }
    // The warp's wgmma reads and scale loads are done: one arrival a warp frees the buffer.
    __syncwarp();
    if (threadIdx.x % 32 == 0) arrive(barriers.freed + buffer);
    if (++buffer == stages) {
      buffer = 0;
      parity ^= 1;
    }
  }
  if (segment.work.slot >= 0) {
    float* slot = params.workspace.partial_sums + static_cast<long>(segment.work.slot) * kStreamingSlotValues;
    if (!gather_partial_sums<N / 2, S::kThreads>(sums, slot, params.workspace.arrivals + segment.work.slot,
                                                 segment.work.pieces)) {
      return;
    }
  }
#pragma unroll
  for (int column_group = 0; column_group < N / kTileRows; ++column_group) {
    store_group<Gated>(params, sums + 4 * column_group, segment.block, column_group, valid, row_a, row_b);
  }
}

// The most token rows a launch of this shape stages: e4m3 takes paired warpgroups from 32 rows up.
template <WeightFormat Format, int Warpgroups>
constexpr int most_rows() {
  return Format == WeightFormat::fp8_block_scaled && Warpgroups == 1 ? kPairedLeastRows / 2 : kStreamingBlockRows;
}

// The producer warps stage N token rows of each block, the consumers multiply them.
template <WeightFormat Format, bool Gated, int Warpgroups, int N>
__device__ void stream_rows(const StreamingParams& params, std::uint8_t* staged, BufferBarriers barriers,
                            const int* source_rows, int expert, int valid, const Segment& segment) {
  if (threadIdx.x >= Stage<Format, Warpgroups>::kThreads) {
    return produce_blocks<Format, Gated, Warpgroups, N>(params, staged, barriers, source_rows, expert,
                                                        segment.row_tile * Warpgroups, valid, segment.work.first,
                                                        segment.work.last);
  }
  consume_segment<Format, Gated, Warpgroups, N>(params, staged, barriers, valid, segment);
}

// wgmma's N is part of the instruction: the fewest of 8, 16, 32, 64 token rows that hold the block
// (paired warpgroups: of 32 and 64), or 64 and the riding rows.
template <WeightFormat Format, bool Gated, int Warpgroups, int Rows = most_rows<Format, Warpgroups>()>
__device__ void stream_fewest(const StreamingParams& params, std::uint8_t* staged, BufferBarriers barriers,
                              const int* source_rows, int expert, int valid, const Segment& segment) {
  if constexpr (rows_ride<Format, Warpgroups>() && Rows == kStreamingBlockRows) {
    if (valid > Rows) {
      return stream_rows<Format, Gated, Warpgroups, Rows + kRidingRows>(params, staged, barriers, source_rows, expert,
                                                                        valid, segment);
    }
  }
  if constexpr (Rows > (Warpgroups > 1 ? kPairedLeastRows : kTileRows)) {
    if (valid <= Rows / 2) {
      return stream_fewest<Format, Gated, Warpgroups, Rows / 2>(params, staged, barriers, source_rows, expert, valid,
                                                                segment);
    }
  }
  stream_rows<Format, Gated, Warpgroups, Rows>(params, staged, barriers, source_rows, expert, valid, segment);
}

// Tiles are (aligned block, 64 weight rows per warpgroup), in the order segment_of gives. A CTA
// streams one tile, or one k piece of a tile in the tail wave (moe/tail_split.hpp): its warpgroups
// multiply the blocks that its last warps stage (gpu/streaming_stage.cuh).
template <WeightFormat Format, bool Gated, int Warpgroups>
__global__ void __launch_bounds__(Stage<Format, Warpgroups>::kCtaThreads, Stage<Format, Warpgroups>::kBlocksPerSm)
    streaming_kernel(const __grid_constant__ StreamingParams params) {
  using S = Stage<Format, Warpgroups>;
  // An atom's alignment, then [stages][S::bytes(staged_rows)], then [stages][S::scale_bytes(staged_rows)],
  // then S::segment_scale_bytes(reduction).
  extern __shared__ uint4 shared_words[];
  __shared__ int source_rows[kStreamingBlockRows + kRidingRows];
  __shared__ std::uint64_t landed[kMostStages];  // per buffer: its weights and token rows have landed
  __shared__ std::uint64_t freed[kMostStages];   // per buffer: every consumer warp is done with its block
  Segment segment;
  int expert = 0, valid = 0;
  if (!find_segment<rows_ride<Format, Warpgroups>(), S::kWeightRows>(params, segment, expert, valid)) {
    return;
  }
  if (threadIdx.x < valid) source_rows[threadIdx.x] = source_row(params, segment.block, threadIdx.x);
  if (threadIdx.x == 0) {
    for (int buffer = 0; buffer < params.stages; ++buffer) {
      // The arrival announcing the weight boxes' bytes, and each producer thread's when its copies land.
      init_barrier(landed + buffer, S::kProducerThreads + 1);
      init_barrier(freed + buffer, S::kThreads / 32);
    }
    fence_barrier_init();
  }
  __syncthreads();
  // Swizzled atoms start 1024-byte aligned: the launch adds an atom to round the start up.
  const std::uint32_t start = shared_address(shared_words);
  std::uint8_t* staged = reinterpret_cast<std::uint8_t*>(shared_words) + (kAtomBytes - start % kAtomBytes) % kAtomBytes;
  stream_fewest<Format, Gated, Warpgroups>(params, staged, {landed, freed}, source_rows, expert, valid, segment);
}

// Staging buffers per CTA: as many as its share of the multiprocessor's shared memory holds (less its
// static bytes, its alignment atom and its segment's weight scales), at least 2, so that the SM keeps
// as many weight bytes in flight as fit. ctas: what the registers allow; on H200, 1-3 CTAs with deeper
// buffers streamed slower than 4 with shallower ones (measured before the producer warps, when each
// CTA's per-block work was serial).
template <class Kernel>
int staging_buffers(Kernel kernel, int buffer_bytes, int ctas, int segment_bytes) {
  cudaFuncAttributes attributes{};
  check_cuda(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes(streaming_kernel)");
  const int fixed = static_cast<int>(attributes.sharedSizeBytes) + kAtomBytes + segment_bytes;
  return std::clamp((shared_memory_share(ctas) - fixed) / buffer_bytes, 2, kMostStages);
}

// A wave: the CTAs the SMs hold at once. CTAs past the launch's work (its blocks are counted on the
// device) return at once.
template <WeightFormat Format, bool Gated, int Warpgroups>
void launch_shape(StreamingParams params, cudaStream_t stream) {
  using S = Stage<Format, Warpgroups>;
  const auto kernel = streaming_kernel<Format, Gated, Warpgroups>;
  params.weight_map = swizzled_expert_map({params.weights, params.experts, params.weight_rows, params.reduction,
                                           S::kElementBytes, Gated, S::kL2PromotionBytes},
                                          S::kWeightRows);
  const int stage_bytes = S::bytes(params.staged_rows) + S::scale_bytes(params.staged_rows);
  const int segment_bytes = S::segment_scale_bytes(params.reduction);
  params.stages = staging_buffers(kernel, stage_bytes, S::kBlocksPerSm, segment_bytes);
  const int shared_bytes = params.stages * stage_bytes + kAtomBytes + segment_bytes;
  const int per_multiprocessor = fit_shared_memory(kernel, S::kCtaThreads, shared_bytes, "streaming_kernel");
  const int ctas_per_multiprocessor = std::min(per_multiprocessor, kStreamingCtasPerSm);
  params.wave = std::min(multiprocessors() * ctas_per_multiprocessor, params.workspace.slots);
  if (params.wave < 1) {
    throw std::runtime_error("streaming GEMM: no CTA fits on a multiprocessor, or no workspace slot");
  }
  const long max_tiles = static_cast<long>(params.blocks.max_blocks) * (params.weight_rows / S::kWeightRows);
  const long ctas = moe_reference::tail_split_ctas(max_tiles, params.wave);
  kernel<<<static_cast<unsigned>(ctas), S::kCtaThreads, shared_bytes, stream>>>(params);
  check_launch("streaming_kernel");
}

template <WeightFormat Format, bool Gated>
void launch_format(StreamingParams params, cudaStream_t stream) {
  if constexpr (Format == WeightFormat::fp8_block_scaled) {
    if (params.staged_rows >= kPairedLeastRows) {
      // Room for the rows that ride with a full block.
      if (params.staged_rows == kStreamingBlockRows) params.staged_rows += kRidingRows;
      return launch_shape<Format, Gated, kMostWarpgroups>(params, stream);
    }
  }
  launch_shape<Format, Gated, 1>(params, stream);
}

template <bool Gated>
void launch(const StreamingParams& params, WeightFormat format, cudaStream_t stream) {
  if (format == WeightFormat::bf16) {
    launch_format<WeightFormat::bf16, Gated>(params, stream);
  } else {
    launch_format<WeightFormat::fp8_block_scaled, Gated>(params, stream);
  }
}

// The staging buffers' token rows: the fewest of 8, 16, 32, 64 that hold block_rows.
int staged_rows(int block_rows) {
  if (block_rows < 1 || block_rows > kStreamingBlockRows) {
    throw std::invalid_argument("streaming GEMM: block_rows out of range");
  }
  int rows = kTileRows;
  while (rows < block_rows) rows *= 2;
  return rows;
}

void require_inputs(const ExpertWeightsView& weights, const GemmRows& rows, const StreamingBlocks& blocks) {
  if (weights.hidden <= 0 || weights.intermediate <= 0 || weights.hidden % moe_reference::kScaleBlock != 0 ||
      weights.intermediate % moe_reference::kScaleBlock != 0) {
    throw std::invalid_argument("streaming GEMM: hidden and intermediate must be positive multiples of 128");
  }
  if ((weights.format == WeightFormat::fp8_block_scaled) != (rows.group_scales != nullptr)) {
    throw std::invalid_argument(
        "streaming GEMM: e4m3 weights read e4m3 token groups (codes and scales), bf16 weights bf16 rows");
  }
  if (blocks.max_blocks < 0) throw std::invalid_argument("streaming GEMM: negative max_blocks");
  if (blocks.max_blocks > 0 &&
      (blocks.sorted_entries == nullptr || blocks.block_experts == nullptr || blocks.padded_rows == nullptr ||
       blocks.running_blocks == nullptr || blocks.running_count == nullptr)) {
    throw std::invalid_argument("streaming GEMM: align's buffers are required (gpu/streaming_gemm.hpp)");
  }
}

}  // namespace

int streaming_workspace_slots() { return multiprocessors() * kStreamingCtasPerSm; }

void launch_streaming_gate_up(GemmRows hidden_states, int top_k, const StreamingBlocks& blocks,
                              const ExpertWeightsView& weights, const StreamingWorkspace& workspace,
                              std::uint16_t* activation, cudaStream_t stream) {
  require_inputs(weights, hidden_states, blocks);
  if (blocks.max_blocks == 0) return;
  const StreamingParams params{.source = static_cast<const std::uint8_t*>(hidden_states.values),
                               .source_scales = hidden_states.group_scales,
                               .gather_top_k = top_k,
                               .blocks = blocks,
                               .weights = static_cast<const std::uint8_t*>(weights.w13),
                               .experts = weights.num_experts,
                               .scales = weights.w13_scales,
                               .reduction = weights.hidden,
                               .weight_rows = 2 * weights.intermediate,
                               .up_offset = weights.intermediate,
                               .output = activation,
                               .output_width = weights.intermediate,
                               .staged_rows = staged_rows(blocks.block_rows),
                               .workspace = workspace};
  launch<true>(params, weights.format, stream);
}

void launch_streaming_down(GemmRows activation, const StreamingBlocks& blocks, const ExpertWeightsView& weights,
                           const StreamingWorkspace& workspace, std::uint16_t* expert_rows, cudaStream_t stream) {
  require_inputs(weights, activation, blocks);
  if (blocks.max_blocks == 0) return;
  const StreamingParams params{.source = static_cast<const std::uint8_t*>(activation.values),
                               .source_scales = activation.group_scales,
                               .blocks = blocks,
                               .weights = static_cast<const std::uint8_t*>(weights.w2),
                               .experts = weights.num_experts,
                               .scales = weights.w2_scales,
                               .reduction = weights.intermediate,
                               .weight_rows = weights.hidden,
                               .output = expert_rows,
                               .output_width = weights.hidden,
                               .staged_rows = staged_rows(blocks.block_rows),
                               .workspace = workspace};
  launch<false>(params, weights.format, stream);
}

}  // namespace moeplan::gpu
