#include "gpu/streaming_gemm.hpp"

#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/streaming_gemm_fragments.cuh"

namespace moeplan::gpu {
namespace {

constexpr int kWarps = 4;
constexpr int kTokenTiles = kStreamingBlockRows / 8;  // mma n = 8 token rows per tile

struct StreamingParams {
  const std::uint16_t* source;  // rows the GEMM reads: hidden states (gathered) or activation rows
  int gather_top_k;             // > 0: source row = entry / top_k; 0: source row = aligned row
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

__device__ long source_row(const StreamingParams& params, int block, int row) {
  if (params.gather_top_k > 0) return params.sorted_entries[block * kStreamingBlockRows + row] / params.gather_top_k;
  return static_cast<long>(block) * kStreamingBlockRows + row;
}

template <bool Gated>
__device__ void store_tile(const StreamingParams& params, const float (&result)[4], int block, int tile, int valid,
                           int row_a, int row_b) {
  const int quad = threadIdx.x % 4;
  for (int column = 0; column < 2; ++column) {
    const int row = tile * 8 + 2 * quad + column;
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

// Token rows of one scale block into shared memory, shared by the CTA's four warps; only the block's
// valid rows: whatever the others hold only reaches output columns never stored.
template <class Rows>
__device__ void stage_block(std::uint16_t* buffer, const std::uint16_t* const* row_sources, int valid, int k0) {
  constexpr int kPieces = kScaleBlockElements / 8;  // 16-byte pieces of a row's block
  constexpr int kRowsPerRound = kWarps * 32 / kPieces;
  const int piece = threadIdx.x % kPieces;
  for (int row = threadIdx.x / kPieces; row < valid; row += kRowsPerRound) {
    copy_async_16(buffer + row * Rows::kStagedRowElements + piece * 8, row_sources[row] + k0 + piece * 8);
  }
}

// A ring of staged blocks. Kept to the rows a block can hold: what shared memory takes, L1 loses,
// and L1 holds the weight loads in flight (a 64-row, 228 KiB carveout halved bf16's streaming rate).
template <WeightFormat Format>
int staged_bytes(int staged_rows) {
  using Rows = WeightRows<Format>;
  return Rows::kStages * staged_rows * Rows::kStagedRowElements * static_cast<int>(sizeof(std::uint16_t));
}

// One warp: 16 weight rows (row_a = its lane group's row; row_b 8 rows on, or the matching up
// row) against every token tile of the block. While a step is multiplied, the next step's
// weights are in flight to registers and the token rows of the blocks ahead to the ring.
template <WeightFormat Format, bool Gated>
__global__ void __launch_bounds__(kWarps * 32, 3) streaming_kernel(StreamingParams params) {
  using Rows = WeightRows<Format>;
  constexpr int kBlocksPerStep = Rows::kStep / kScaleBlockElements;
  extern __shared__ uint4 shared_words[];  // [Rows::kStages][params.staged_rows][Rows::kStagedRowElements] bf16
  __shared__ const std::uint16_t* row_sources[kStreamingBlockRows];
  std::uint16_t* staged = reinterpret_cast<std::uint16_t*>(shared_words);
  const int buffer_elements = params.staged_rows * Rows::kStagedRowElements;
  const int block = blockIdx.x;
  const int expert = params.block_experts[block];
  if (expert < 0) return;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, quad = lane % 4;
  const std::int32_t* entries = params.sorted_entries + static_cast<long>(block) * kStreamingBlockRows;
  const int valid = __popc(__ballot_sync(0xFFFFFFFFu, entries[lane] >= 0)) +
                    __popc(__ballot_sync(0xFFFFFFFFu, entries[lane + 32] >= 0));
  if (valid > params.staged_rows) __trap();  // the launcher promised fewer rows per block
  const int tiles = (valid + 7) / 8;
  if (threadIdx.x < valid) row_sources[threadIdx.x] = params.source + source_row(params, block, threadIdx.x) * params.reduction;
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
  const int blocks = params.reduction / kScaleBlockElements;
#pragma unroll
  for (int ahead = 0; ahead < Rows::kStages - 1; ++ahead) {
    if (ahead < blocks) stage_block<Rows>(staged + ahead * buffer_elements, row_sources, valid, ahead * kScaleBlockElements);
    commit_copies();
  }
  float accumulators[kTokenTiles][4] = {};
  typename Rows::Raw current = rows.load(0, quad, min(kBlocksPerStep, blocks)), next = current;
  for (int first = 0; first < blocks; first += kBlocksPerStep) {
    const int next_blocks = min(kBlocksPerStep, blocks - first - kBlocksPerStep);
    if (next_blocks > 0) next = rows.load((first + kBlocksPerStep) * kScaleBlockElements, quad, next_blocks);
#pragma unroll
    for (int local = 0; local < kBlocksPerStep; ++local) {
      const int scale_block = first + local;
      if (scale_block >= blocks) break;
      wait_all_but_newest<Rows::kStages - 2>();
      // Past this barrier every warp is done with the previous block, so its buffer takes the refill.
      __syncthreads();
      const int refill = scale_block + Rows::kStages - 1;
      if (refill < blocks) {
        stage_block<Rows>(staged + (refill % Rows::kStages) * buffer_elements, row_sources, valid,
                          refill * kScaleBlockElements);
      }
      commit_copies();
      const std::uint16_t* buffer = staged + (scale_block % Rows::kStages) * buffer_elements;
      std::uint32_t words_a[16], words_b[16];
      Rows::to_bf16_words(current, local, words_a, words_b);
      float partial[kTokenTiles][4] = {};
#pragma unroll
      for (int tile = 0; tile < kTokenTiles; ++tile) {
        if (tile < tiles) {
          multiply_block<Rows>(words_a, words_b, buffer + (tile * 8 + group) * Rows::kStagedRowElements, quad,
                               partial[tile]);
        }
      }
      // fp8: partial sums of one scale block take that block's scale.
      const int k = scale_block * kScaleBlockElements;
      const float scale_a = rows.scale(params.scales, expert, params.weight_rows, row_a, k);
      const float scale_b = rows.scale(params.scales, expert, params.weight_rows, row_b, k);
#pragma unroll
      for (int tile = 0; tile < kTokenTiles; ++tile) {
        accumulators[tile][0] += scale_a * partial[tile][0];
        accumulators[tile][1] += scale_a * partial[tile][1];
        accumulators[tile][2] += scale_b * partial[tile][2];
        accumulators[tile][3] += scale_b * partial[tile][3];
      }
    }
    current = next;
  }
#pragma unroll
  for (int tile = 0; tile < kTokenTiles; ++tile) {
    if (tile < tiles) store_tile<Gated>(params, accumulators[tile], block, tile, valid, row_a, row_b);
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

template <WeightFormat Format, bool Gated>
void allow_staged_bytes() {
  check_cuda(cudaFuncSetAttribute(streaming_kernel<Format, Gated>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  staged_bytes<Format>(kStreamingBlockRows)),
             "cudaFuncSetAttribute(streaming_kernel)");
}

int staged_rows(int block_rows) {
  if (block_rows < 1 || block_rows > kStreamingBlockRows) throw std::invalid_argument("streaming GEMM: block_rows out of range");
  return (block_rows + 7) / 8 * 8;
}

void require_shape(const ExpertWeightsView& weights) {
  if (weights.hidden % kScaleBlockElements != 0 || weights.intermediate % kScaleBlockElements != 0) {
    throw std::invalid_argument("streaming GEMM: hidden and intermediate must be multiples of 128");
  }
}

}  // namespace

void allow_streaming_shared_memory() {
  allow_staged_bytes<WeightFormat::bf16, true>();
  allow_staged_bytes<WeightFormat::bf16, false>();
  allow_staged_bytes<WeightFormat::fp8_block_scaled, true>();
  allow_staged_bytes<WeightFormat::fp8_block_scaled, false>();
}

void launch_streaming_gate_up(const std::uint16_t* hidden_states, int top_k, const std::int32_t* sorted_entries,
                              const std::int32_t* block_experts, int max_blocks, int block_rows,
                              const ExpertWeightsView& weights, std::uint16_t* activation, cudaStream_t stream) {
  require_shape(weights);
  if (max_blocks == 0) return;
  const StreamingParams params{hidden_states, top_k, sorted_entries, block_experts,
                               static_cast<const std::uint8_t*>(weights.w13), weights.w13_scales, weights.hidden,
                               2 * weights.intermediate, weights.intermediate, activation, weights.intermediate,
                               staged_rows(block_rows)};
  launch<true>(params, weights.format, dim3(max_blocks, weights.intermediate / (kWarps * 8)), stream);
}

void launch_streaming_down(const std::uint16_t* activation, const std::int32_t* sorted_entries,
                           const std::int32_t* block_experts, int max_blocks, int block_rows,
                           const ExpertWeightsView& weights, std::uint16_t* expert_rows, cudaStream_t stream) {
  require_shape(weights);
  if (max_blocks == 0) return;
  const StreamingParams params{activation, 0, sorted_entries, block_experts,
                               static_cast<const std::uint8_t*>(weights.w2), weights.w2_scales, weights.intermediate,
                               weights.hidden, 0, expert_rows, weights.hidden, staged_rows(block_rows)};
  launch<false>(params, weights.format, dim3(max_blocks, weights.hidden / (kWarps * 16)), stream);
}

}  // namespace moeplan::gpu
