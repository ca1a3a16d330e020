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

constexpr int kCopiesPerThread = kStreamingBlockRows * (kChunk / 8) / (kWarps * 32);  // 16-byte pieces
constexpr int kRowsPerCopyRound = kWarps * 32 / (kChunk / 8);

// Token rows of one chunk into shared memory, shared by the CTA's four warps. Rows past the
// block's valid rows are not copied: whatever they hold only reaches output columns never stored.
__device__ void stage_chunk(std::uint16_t (*staged)[kStagedRowElements], const std::uint16_t* const (&row_sources)[kCopiesPerThread],
                            int k0) {
  const int piece = threadIdx.x % (kChunk / 8);
#pragma unroll
  for (int copy = 0; copy < kCopiesPerThread; ++copy) {
    if (row_sources[copy] == nullptr) continue;
    const int row = threadIdx.x / (kChunk / 8) + copy * kRowsPerCopyRound;
    copy_async_16(&staged[row][piece * 8], row_sources[copy] + k0 + piece * 8);
  }
}

// One warp: 16 weight rows (row_a = its lane group's row; row_b 8 rows on, or the matching up
// row) against every token tile of the block. While a chunk is multiplied, the next chunk's
// weights are in flight to registers and its token rows to the other shared-memory buffer.
template <WeightFormat Format, bool Gated>
__global__ void __launch_bounds__(kWarps * 32, 3) streaming_kernel(StreamingParams params) {
  __shared__ alignas(16) std::uint16_t staged[2][kStreamingBlockRows][kStagedRowElements];
  const int block = blockIdx.x;
  const int expert = params.block_experts[block];
  if (expert < 0) return;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, quad = lane % 4;
  const std::int32_t* entries = params.sorted_entries + static_cast<long>(block) * kStreamingBlockRows;
  const int valid = __popc(__ballot_sync(0xFFFFFFFFu, entries[lane] >= 0)) +
                    __popc(__ballot_sync(0xFFFFFFFFu, entries[lane + 32] >= 0));
  const int tiles = (valid + 7) / 8;
  const std::uint16_t* row_sources[kCopiesPerThread];
#pragma unroll
  for (int copy = 0; copy < kCopiesPerThread; ++copy) {
    const int row = threadIdx.x / (kChunk / 8) + copy * kRowsPerCopyRound;
    row_sources[copy] = row < valid ? params.source + source_row(params, block, row) * params.reduction : nullptr;
  }
  int row_a, row_b;
  if constexpr (Gated) {
    row_a = blockIdx.y * (kWarps * 8) + warp * 8 + group;
    row_b = params.up_offset + row_a;
  } else {
    row_a = blockIdx.y * (kWarps * 16) + warp * 16 + group;
    row_b = row_a + 8;
  }
  WeightRows<Format> rows(params.weights, static_cast<long>(expert) * params.weight_rows, row_a, row_b,
                          params.reduction);
  float accumulators[kTokenTiles][4] = {};
  stage_chunk(staged[0], row_sources, 0);
  commit_copies();
  typename WeightRows<Format>::Raw current = rows.load(0, quad), next = current;
  for (int chunk = 0, k0 = 0; k0 < params.reduction; ++chunk, k0 += kChunk) {
    if (k0 + kChunk < params.reduction) {
      stage_chunk(staged[(chunk + 1) % 2], row_sources, k0 + kChunk);
      next = rows.load(k0 + kChunk, quad);
    }
    commit_copies();
    wait_all_but_newest();
    __syncthreads();
    std::uint32_t words_a[16], words_b[16];
    WeightRows<Format>::to_bf16_words(current, words_a, words_b);
    float partial[kTokenTiles][4] = {};
#pragma unroll
    for (int tile = 0; tile < kTokenTiles; ++tile) {
      if (tile < tiles) multiply_chunk(words_a, words_b, staged[chunk % 2][tile * 8 + group], quad, partial[tile]);
    }
    // fp8: each 128-wide chunk is one scale block, so its partial sums take that block's scale.
    const float scale_a = rows.scale(params.scales, expert, params.weight_rows, row_a, k0);
    const float scale_b = rows.scale(params.scales, expert, params.weight_rows, row_b, k0);
#pragma unroll
    for (int tile = 0; tile < kTokenTiles; ++tile) {
      accumulators[tile][0] += scale_a * partial[tile][0];
      accumulators[tile][1] += scale_a * partial[tile][1];
      accumulators[tile][2] += scale_b * partial[tile][2];
      accumulators[tile][3] += scale_b * partial[tile][3];
    }
    __syncthreads();  // this buffer is refilled two chunks on
    current = next;
  }
#pragma unroll
  for (int tile = 0; tile < kTokenTiles; ++tile) {
    if (tile < tiles) store_tile<Gated>(params, accumulators[tile], block, tile, valid, row_a, row_b);
  }
}

template <bool Gated>
void launch(const StreamingParams& params, WeightFormat format, dim3 grid, cudaStream_t stream) {
  if (format == WeightFormat::bf16) {
    streaming_kernel<WeightFormat::bf16, Gated><<<grid, kWarps * 32, 0, stream>>>(params);
  } else {
    streaming_kernel<WeightFormat::fp8_block_scaled, Gated><<<grid, kWarps * 32, 0, stream>>>(params);
  }
  check_launch("streaming_kernel");
}

void require_shape(const ExpertWeightsView& weights) {
  if (weights.hidden % kChunk != 0 || weights.intermediate % kChunk != 0) {
    throw std::invalid_argument("streaming GEMM: hidden and intermediate must be multiples of 128");
  }
}

}  // namespace

void launch_streaming_gate_up(const std::uint16_t* hidden_states, int top_k, const std::int32_t* sorted_entries,
                              const std::int32_t* block_experts, int max_blocks, const ExpertWeightsView& weights,
                              std::uint16_t* activation, cudaStream_t stream) {
  require_shape(weights);
  if (max_blocks == 0) return;
  const StreamingParams params{hidden_states, top_k, sorted_entries, block_experts,
                               static_cast<const std::uint8_t*>(weights.w13), weights.w13_scales, weights.hidden,
                               2 * weights.intermediate, weights.intermediate, activation, weights.intermediate};
  launch<true>(params, weights.format, dim3(max_blocks, weights.intermediate / (kWarps * 8)), stream);
}

void launch_streaming_down(const std::uint16_t* activation, const std::int32_t* sorted_entries,
                           const std::int32_t* block_experts, int max_blocks, const ExpertWeightsView& weights,
                           std::uint16_t* expert_rows, cudaStream_t stream) {
  require_shape(weights);
  if (max_blocks == 0) return;
  const StreamingParams params{activation, 0, sorted_entries, block_experts,
                               static_cast<const std::uint8_t*>(weights.w2), weights.w2_scales, weights.intermediate,
                               weights.hidden, 0, expert_rows, weights.hidden};
  launch<false>(params, weights.format, dim3(max_blocks, weights.hidden / (kWarps * 16)), stream);
}

}  // namespace moeplan::gpu
