#pragma once
// Register fragments of the streaming GEMM: mma.sync m16n8k16 with bf16 weights and tokens, or
// m16n8k32 with e4m3 weights and e4m3 token groups; fp32 accumulate. Weights are operand A (16
// weight rows), token rows operand B (8 tokens): with few tokens the weights fill the wide side.
//
// A reduction is free to visit k in any order as long as both operands agree, so each lane loads
// 16 contiguous bytes per row and assigns the fragment registers from them, for A and B alike: of
// a lane's words, mma takes two consecutive ones as its k {2t, 2t+1} and {2t+8, 2t+9} pairs (bf16)
// or k {4t .. 4t+3} and {4t+16 .. 4t+19} quads (e4m3), t = lane % 4 (PTX ISA, mma fragments).
#include <cstdint>

#include <cuda_bf16.h>

#include "gpu/expert_weights_view.hpp"
#include "gpu/streaming_gemm.hpp"
#include "moe/fp8_format.hpp"

namespace moeplan::gpu {

constexpr int kTileRows = 8;  // mma n: token rows per tile
constexpr int kTokenTiles = kStreamingBlockRows / kTileRows;

__device__ inline std::uint16_t bf16_bits_of(float value) {
  return __bfloat16_as_ushort(__float2bfloat16_rn(value));
}

// Read once, never reused by this SM: keep it out of L1.
__device__ inline uint4 load_streaming_16(const void* address) {
  uint4 value;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(value.x), "=r"(value.y), "=r"(value.z), "=r"(value.w)
               : "l"(address));
  return value;
}

__device__ inline void mma_e4m3(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2, std::uint32_t a3,
                                std::uint32_t b0, std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ inline void mma_bf16(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2, std::uint32_t a3,
                                std::uint32_t b0, std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

template <WeightFormat Format>
struct WeightRows;

// Each lane keeps 32 of a 128-element scale block per row as four groups of 8 elements (16 words);
// group_offset places group g of quad t within a scale block, for the weights and the staged tokens alike.
template <>
struct WeightRows<WeightFormat::bf16> {
  static constexpr int kStep = 128;            // reduction elements per pipeline step of the weights
  static constexpr int kStages = 2;            // staged token blocks: the one multiplied, the next in flight
  static constexpr int kTokenBytes = 2;        // bf16 token rows
  static constexpr int kStagedRowBytes = 320;  // 8 lanes of a shared-memory phase on distinct banks
  static constexpr bool kScaledTokens = false;
  static constexpr int kBlocksPerSm = 3;
  struct Raw {
    uint4 a[4], b[4];
  };
  const std::uint16_t* row_a;
  const std::uint16_t* row_b;

  __device__ static constexpr int group_offset(int group, int quad) { return 32 * group + 8 * quad; }

  __device__ WeightRows(const void* weights, long first_row, int a, int b, int reduction)
      : row_a(static_cast<const std::uint16_t*>(weights) + (first_row + a) * reduction),
        row_b(static_cast<const std::uint16_t*>(weights) + (first_row + b) * reduction) {}

  __device__ Raw load(int k0, int quad, int) const {
    Raw raw;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      raw.a[j] = load_streaming_16(row_a + k0 + group_offset(j, quad));
      raw.b[j] = load_streaming_16(row_b + k0 + group_offset(j, quad));
    }
    return raw;
  }

  __device__ float scale(const float*, int, int, int, int) const { return 1.0f; }

  // One scale block into every token tile's accumulators: eight mma per tile over its four groups.
  __device__ static void accumulate_block(const Raw& raw, int, const std::uint8_t* staged, const float*, int tiles,
                                          int group, int quad, float, float, float (&sums)[kTokenTiles][4]) {
    const std::uint32_t* a = reinterpret_cast<const std::uint32_t*>(raw.a);
    const std::uint32_t* b = reinterpret_cast<const std::uint32_t*>(raw.b);
#pragma unroll
    for (int tile = 0; tile < kTokenTiles; ++tile) {
      if (tile >= tiles) break;
      const std::uint8_t* row_bytes = staged + (tile * kTileRows + group) * kStagedRowBytes;
      const std::uint16_t* row = reinterpret_cast<const std::uint16_t*>(row_bytes);
#pragma unroll
      for (int word_group = 0; word_group < 4; ++word_group) {
        const uint4 tokens = *reinterpret_cast<const uint4*>(row + group_offset(word_group, quad));
        const int w = 4 * word_group;
        mma_bf16(sums[tile], a[w], b[w], a[w + 1], b[w + 1], tokens.x, tokens.y);
        mma_bf16(sums[tile], a[w + 2], b[w + 2], a[w + 3], b[w + 3], tokens.z, tokens.w);
      }
    }
  }
};

// e4m3 weights against e4m3 token groups. A step spans two scale blocks, so that each load is 16
// bytes as for bf16: a step's latency is spent on as many bytes in flight. Load j of a row holds
// elements 64 j + 16 quad .. + 15 of the step; the staged token rows hold theirs at the same offsets.
template <>
struct WeightRows<WeightFormat::fp8_block_scaled> {
  static constexpr int kStep = 256;
  static constexpr int kStages = 3;            // staged token blocks: one multiplied, a step's worth in flight
  static constexpr int kTokenBytes = 1;        // e4m3 token groups
  static constexpr int kStagedRowBytes = 192;  // 8 lanes of a shared-memory phase on distinct banks
  static constexpr bool kScaledTokens = true;  // one float per staged row follows the rows
  static constexpr int kBlocksPerSm = 3;       // 4 would spill: 128 registers hold less than two steps of weights
  struct Raw {
    uint4 a[4], b[4];
  };
  const std::uint8_t* row_a;
  const std::uint8_t* row_b;
  int reduction;

  __device__ WeightRows(const void* weights, long first_row, int a, int b, int reduction_length)
      : row_a(static_cast<const std::uint8_t*>(weights) + (first_row + a) * reduction_length),
        row_b(static_cast<const std::uint8_t*>(weights) + (first_row + b) * reduction_length),
        reduction(reduction_length) {}

  // blocks: scale blocks left in this step (1 at a reduction ending half-way through a step).
  __device__ Raw load(int k0, int quad, int blocks) const {
    Raw raw{};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (j >= 2 * blocks) break;
      raw.a[j] = load_streaming_16(row_a + k0 + 64 * j + 16 * quad);
      raw.b[j] = load_streaming_16(row_b + k0 + 64 * j + 16 * quad);
    }
    return raw;
  }

  // The 128x128 block holding (row, k) of this expert: scales are [experts][rows / 128][K / 128].
  __device__ float scale(const float* scales, int expert, int rows_per_expert, int row, int k) const {
    const int blocks_per_row = reduction / moe::kScaleBlock;
    const long block_row = static_cast<long>(expert) * (rows_per_expert / moe::kScaleBlock) + row / moe::kScaleBlock;
    return scales[block_row * blocks_per_row + k / moe::kScaleBlock];
  }

  // Scale block `block` of the step (loads 2 block and 2 block + 1): four mma per tile into a
  // partial sum that takes the weight block's and each token group's scale (kernels.md, DeepGEMM's
  // promotion of each 128-deep partial to the fp32 accumulator).
  __device__ static void accumulate_block(const Raw& raw, int block, const std::uint8_t* staged,
                                          const float* token_scales, int tiles, int group, int quad, float scale_a,
                                          float scale_b, float (&sums)[kTokenTiles][4]) {
#pragma unroll
    for (int tile = 0; tile < kTokenTiles; ++tile) {
      if (tile >= tiles) break;
      const std::uint8_t* row = staged + (tile * kTileRows + group) * kStagedRowBytes;
      float partial[4] = {};
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const uint4 tokens = *reinterpret_cast<const uint4*>(row + 64 * half + 16 * quad);
        const uint4 a = raw.a[2 * block + half], b = raw.b[2 * block + half];
        mma_e4m3(partial, a.x, b.x, a.y, b.y, tokens.x, tokens.y);
        mma_e4m3(partial, a.z, b.z, a.w, b.w, tokens.z, tokens.w);
      }
      const float2 token_scale = *reinterpret_cast<const float2*>(token_scales + tile * kTileRows + 2 * quad);
      sums[tile][0] += scale_a * token_scale.x * partial[0];
      sums[tile][1] += scale_a * token_scale.y * partial[1];
      sums[tile][2] += scale_b * token_scale.x * partial[2];
      sums[tile][3] += scale_b * token_scale.y * partial[3];
    }
  }
};

__device__ inline void copy_async_16(void* shared_target, const void* global_source) {
  const unsigned target = static_cast<unsigned>(__cvta_generic_to_shared(shared_target));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(target), "l"(global_source));
}
__device__ inline void copy_async_4(void* shared_target, const void* global_source) {
  const unsigned target = static_cast<unsigned>(__cvta_generic_to_shared(shared_target));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(target), "l"(global_source));
}
__device__ inline void commit_copies() { asm volatile("cp.async.commit_group;"); }
// Waits until at most the newest `Pending` committed groups are still in flight.
template <int Pending>
__device__ inline void wait_all_but_newest() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending));
}

}  // namespace moeplan::gpu
