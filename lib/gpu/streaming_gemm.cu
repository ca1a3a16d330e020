#include "gpu/streaming_gemm.hpp"

#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/streaming_gemm_fragments.cuh"
#include "spec/dtype.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kWarps = 4;

struct StreamingParams {
  const std::uint8_t* source;  // rows the GEMM reads: hidden states (gathered) or activation rows
  const float* source_scales;  // e4m3 token groups: [source rows][reduction / 128]
  int gather_top_k;            // > 0: source row = entry / top_k; 0: source row = aligned row
  const std::int32_t* sorted_entries;
  const std::int32_t* block_experts;
  const std::uint8_t* weights;
  const float* scales;
  int reduction;     // K: hidden for w13, intermediate for w2
  int weight_rows;   // N per expert: 2I for w13, hidden for w2
  int up_offset;     // gated: the first up row (I)
  std::uint16_t* output;
  int output_width;
  int staged_rows;  // rows of each staging buffer: the most any block holds, rounded up to a token tile
};

__device__ float silu(float x) { return x / (1.0f + __expf(-x)); }

__device__ int source_row(const StreamingParams& params, int block, int row) {
  if (params.gather_top_k > 0) return params.sorted_entries[block * kStreamingBlockRows + row] / params.gather_top_k;
  return block * kStreamingBlockRows + row;
}

template <bool Gated>
__device__ void store_tile(const StreamingParams& params, const float (&result)[4], int block, int tile, int valid,
                           int row_a, int row_b) {
  const int quad = threadIdx.x % 4;
  for (int column = 0; column < 2; ++column) {
    const int row = tile * kTileRows + 2 * quad + column;
    if (row >= valid) continue;
    std::uint16_t* out = params.output + (static_cast<long>(block) * kStreamingBlockRows + row) * params.output_width;
    if constexpr (Gated) {
      // doc 002: SiLU-and-mul; row_a holds the gate feature, row_b the up feature of the same index.
      out[row_a] = bf16_bits_of(silu(result[column]) * result[2 + column]);
    } else {
      out[row_a] = bf16_bits_of(result[column]);
      out[row_b] = bf16_bits_of(result[2 + column]);
    }
  }
}

// One staging buffer: the token rows of one scale block, then (e4m3 token groups) their scales.
template <class Rows>
__host__ __device__ constexpr int stage_bytes(int staged_rows) {
  return staged_rows * (Rows::kStagedRowBytes + (Rows::kScaledTokens ? static_cast<int>(sizeof(float)) : 0));
}

// Token rows of one scale block into shared memory, shared by the CTA's four warps; only the block's
// valid rows: whatever the others hold only reaches output columns never stored.
template <class Rows>
__device__ void stage_block(std::uint8_t* buffer, const StreamingParams& params, const int* source_rows, int valid,
                            int scale_block) {
  constexpr int kPieces = moe::kScaleBlock * Rows::kTokenBytes / 16;  // 16-byte pieces of a row's block
  constexpr int kRowsPerRound = kWarps * 32 / kPieces;
  const long row_bytes = static_cast<long>(params.reduction) * Rows::kTokenBytes;
  const int piece = threadIdx.x % kPieces;
  const long offset = static_cast<long>(scale_block) * moe::kScaleBlock * Rows::kTokenBytes + piece * 16;
  for (int row = threadIdx.x / kPieces; row < valid; row += kRowsPerRound) {
    copy_async_16(buffer + row * Rows::kStagedRowBytes + piece * 16,
                  params.source + source_rows[row] * row_bytes + offset);
  }
  if constexpr (Rows::kScaledTokens) {
    float* scales = reinterpret_cast<float*>(buffer + params.staged_rows * Rows::kStagedRowBytes);
    const int groups = params.reduction / moe::kScaleBlock;
    if (threadIdx.x < valid) {
      const long first_group = static_cast<long>(source_rows[threadIdx.x]) * groups;
      copy_async_4(scales + threadIdx.x, params.source_scales + first_group + scale_block);
    }
  }
}

// A ring of staged blocks. Kept to the rows a block can hold: what shared memory takes, L1 loses,
// and L1 holds the weight loads in flight (a 64-row, 228 KiB carveout halved bf16's streaming rate).
template <WeightFormat Format>
constexpr int staged_bytes(int staged_rows) {
  using Rows = WeightRows<Format>;
  return Rows::kStages * stage_bytes<Rows>(staged_rows);
}
// Both rings fit the 48 KiB a launch may take without opting in, beside the static row table.
constexpr int kSharedWithoutOptIn = 48 * 1024 - kStreamingBlockRows * static_cast<int>(sizeof(int));
static_assert(staged_bytes<WeightFormat::bf16>(kStreamingBlockRows) <= kSharedWithoutOptIn);
static_assert(staged_bytes<WeightFormat::fp8_block_scaled>(kStreamingBlockRows) <= kSharedWithoutOptIn);

// One warp: 16 weight rows (row_a = its lane group's row; row_b 8 rows on, or the matching up
// row) against every token tile of the block. While a step is multiplied, the next step's
// weights are in flight to registers and the token rows of the blocks ahead to the ring.
template <WeightFormat Format, bool Gated>
__global__ void __launch_bounds__(kWarps * 32, WeightRows<Format>::kBlocksPerSm)
    streaming_kernel(StreamingParams params) {
  using Rows = WeightRows<Format>;
  constexpr int kBlocksPerStep = Rows::kStep / moe::kScaleBlock;
  extern __shared__ uint4 shared_words[];  // [Rows::kStages][stage_bytes<Rows>(params.staged_rows)]
  __shared__ int source_rows[kStreamingBlockRows];
  std::uint8_t* staged = reinterpret_cast<std::uint8_t*>(shared_words);
  const int buffer_bytes = stage_bytes<Rows>(params.staged_rows);
  const int block = blockIdx.x;
  const int expert = params.block_experts[block];
  if (expert < 0) return;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, quad = lane % 4;
  const std::int32_t* entries = params.sorted_entries + static_cast<long>(block) * kStreamingBlockRows;
  const int valid = __popc(__ballot_sync(0xFFFFFFFFu, entries[lane] >= 0)) +
                    __popc(__ballot_sync(0xFFFFFFFFu, entries[lane + 32] >= 0));
  if (valid > params.staged_rows) __trap();  // the launcher promised fewer rows per block
  const int tiles = (valid + kTileRows - 1) / kTileRows;
  if (threadIdx.x < valid) source_rows[threadIdx.x] = source_row(params, block, threadIdx.x);
  __syncthreads();
  int row_a, row_b;
  if constexpr (Gated) {
    row_a = blockIdx.y * (kWarps * 8) + warp * 8 + group;
    row_b = params.up_offset + row_a;
  } else {
    row_a = blockIdx.y * (kWarps * 16) + warp * 16 + group;
    row_b = row_a + 8;
  }
  const Rows rows(params.weights, static_cast<long>(expert) * params.weight_rows, row_a, row_b, params.reduction);
  const int blocks = params.reduction / moe::kScaleBlock;
#pragma unroll
  for (int ahead = 0; ahead < Rows::kStages - 1; ++ahead) {
    if (ahead < blocks) stage_block<Rows>(staged + ahead * buffer_bytes, params, source_rows, valid, ahead);
    commit_copies();
  }
  float sums[kTokenTiles][4] = {};
  typename Rows::Raw current = rows.load(0, quad, min(kBlocksPerStep, blocks)), next = current;
  for (int first = 0; first < blocks; first += kBlocksPerStep) {
    const int next_blocks = min(kBlocksPerStep, blocks - first - kBlocksPerStep);
    if (next_blocks > 0) next = rows.load((first + kBlocksPerStep) * moe::kScaleBlock, quad, next_blocks);
#pragma unroll
    for (int local = 0; local < kBlocksPerStep; ++local) {
      const int scale_block = first + local;
      if (scale_block >= blocks) break;
      wait_all_but_newest<Rows::kStages - 2>();
      // Past this barrier every warp is done with the previous block, so its buffer takes the refill.
      __syncthreads();
      const int refill = scale_block + Rows::kStages - 1;
      if (refill < blocks) {
        stage_block<Rows>(staged + (refill % Rows::kStages) * buffer_bytes, params, source_rows, valid, refill);
      }
      commit_copies();
      const std::uint8_t* buffer = staged + (scale_block % Rows::kStages) * buffer_bytes;
      const float* token_scales = reinterpret_cast<const float*>(buffer + params.staged_rows * Rows::kStagedRowBytes);
      const int k = scale_block * moe::kScaleBlock;
      Rows::accumulate_block(current, local, buffer, token_scales, tiles, group, quad,
                             rows.scale(params.scales, expert, params.weight_rows, row_a, k),
                             rows.scale(params.scales, expert, params.weight_rows, row_b, k), sums);
    }
    current = next;
  }
#pragma unroll
  for (int tile = 0; tile < kTokenTiles; ++tile) {
    if (tile < tiles) store_tile<Gated>(params, sums[tile], block, tile, valid, row_a, row_b);
  }
}

template <WeightFormat Format, bool Gated>
void launch_format(const StreamingParams& params, dim3 grid, cudaStream_t stream) {
  streaming_kernel<Format, Gated><<<grid, kWarps * 32, staged_bytes<Format>(params.staged_rows), stream>>>(params);
  check_launch("streaming_kernel");
}

template <bool Gated>
void launch(const StreamingParams& params, WeightFormat format, dim3 grid, cudaStream_t stream) {
  if (format == WeightFormat::bf16) {
    launch_format<WeightFormat::bf16, Gated>(params, grid, stream);
  } else {
    launch_format<WeightFormat::fp8_block_scaled, Gated>(params, grid, stream);
  }
}

int staged_rows(int block_rows) {
  if (block_rows < 1 || block_rows > kStreamingBlockRows) {
    throw std::invalid_argument("streaming GEMM: block_rows out of range");
  }
  return static_cast<int>(divide_rounding_up(block_rows, kTileRows) * kTileRows);
}

void require_inputs(const ExpertWeightsView& weights, const StreamingRows& rows) {
  if (weights.hidden <= 0 || weights.intermediate <= 0 || weights.hidden % moe::kScaleBlock != 0 ||
      weights.intermediate % moe::kScaleBlock != 0) {
    throw std::invalid_argument("streaming GEMM: hidden and intermediate must be positive multiples of 128");
  }
  if ((weights.format == WeightFormat::fp8_block_scaled) != (rows.group_scales != nullptr)) {
    throw std::invalid_argument(
        "streaming GEMM: e4m3 weights read e4m3 token groups (codes and scales), bf16 weights bf16 rows");
  }
}

}  // namespace

void launch_streaming_gate_up(StreamingRows hidden_states, int top_k, const std::int32_t* sorted_entries,
                              const std::int32_t* block_experts, int max_blocks, int block_rows,
                              const ExpertWeightsView& weights, std::uint16_t* activation, cudaStream_t stream) {
  require_inputs(weights, hidden_states);
  if (max_blocks == 0) return;
  const StreamingParams params{static_cast<const std::uint8_t*>(hidden_states.values), hidden_states.group_scales,
                               top_k, sorted_entries, block_experts,
                               static_cast<const std::uint8_t*>(weights.w13), weights.w13_scales, weights.hidden,
                               2 * weights.intermediate, weights.intermediate, activation, weights.intermediate,
                               staged_rows(block_rows)};
  launch<true>(params, weights.format, dim3(max_blocks, weights.intermediate / (kWarps * 8)), stream);
}

void launch_streaming_down(StreamingRows activation, const std::int32_t* sorted_entries,
                           const std::int32_t* block_experts, int max_blocks, int block_rows,
                           const ExpertWeightsView& weights, std::uint16_t* expert_rows, cudaStream_t stream) {
  require_inputs(weights, activation);
  if (max_blocks == 0) return;
  const StreamingParams params{static_cast<const std::uint8_t*>(activation.values), activation.group_scales, 0,
                               sorted_entries, block_experts,
                               static_cast<const std::uint8_t*>(weights.w2), weights.w2_scales, weights.intermediate,
                               weights.hidden, 0, expert_rows, weights.hidden, staged_rows(block_rows)};
  launch<false>(params, weights.format, dim3(max_blocks, weights.hidden / (kWarps * 16)), stream);
}

}  // namespace moeplan::gpu
