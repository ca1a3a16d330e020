#pragma once
// Register fragments of the streaming GEMM (mma.sync m16n8k16, bf16 in, fp32 accumulate).
// Weights are operand A (16 weight rows), token rows operand B (8 tokens): with few tokens the
// weights fill the wide side of the instruction.
//
// A reduction is free to visit k in any order as long as both operands agree, so each lane
// loads 16 contiguous bytes per row and the fragment registers are assigned from them: word w of
// quad t (lane % 4) holds elements group_offset(w / 4, t) + 2 * (w % 4) + {0, 1} of its scale block; mma m
// of a scale block takes words 2m and 2m + 1 as its k {2t, 2t+1} and {2t+8, 2t+9} pairs, for A and
// B alike.
#include <cstdint>

#include <cuda_bf16.h>

#include "gpu/expert_weights_view.hpp"
#include "moe/e4m3_pair_decode.hpp"

namespace moeplan::gpu {

constexpr int kScaleBlockElements = 128;  // one fp8 scale block along the reduction; one mma pass

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

__device__ inline uint2 load_streaming_8(const void* address) {
  uint2 value;
  asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];" : "=r"(value.x), "=r"(value.y) : "l"(address));
  return value;
}

__device__ inline void mma_bf16(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2, std::uint32_t a3,
                                std::uint32_t b0, std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// Selected byte sign-extended: prmt's selector nibble with its top bit set copies the byte's sign
// bit over the whole byte (PTX ISA, prmt default mode).
__device__ inline std::uint32_t permute_bytes(std::uint32_t word, std::uint32_t selector) {
  std::uint32_t result;
  asm("prmt.b32 %0, %1, 0, %2;" : "=r"(result) : "r"(word), "r"(selector));
  return result;
}

// Four e4m3 codes (one word) to two bf16 pairs: each pair of codes sign-extended to 16 bits by one
// prmt, moe/e4m3_pair_decode.hpp's shift and mask, then one exact bf16 multiply by 2^120.
__device__ inline void e4m3_quad_to_bf16(std::uint32_t codes, std::uint32_t& low_pair, std::uint32_t& high_pair) {
  constexpr unsigned short kUnscaleBits = (127 - moe::kE4m3InBf16Exponent) << 7;  // bf16 2^120
  const __nv_bfloat162 unscale = __nv_bfloat162(__nv_bfloat162_raw{kUnscaleBits, kUnscaleBits});
  const std::uint32_t scaled_low = moe::e4m3_pair_as_scaled_bf16_pair(permute_bytes(codes, 0x9180));
  const std::uint32_t scaled_high = moe::e4m3_pair_as_scaled_bf16_pair(permute_bytes(codes, 0xB3A2));
  const __nv_bfloat162 low = __hmul2(*reinterpret_cast<const __nv_bfloat162*>(&scaled_low), unscale);
  const __nv_bfloat162 high = __hmul2(*reinterpret_cast<const __nv_bfloat162*>(&scaled_high), unscale);
  low_pair = *reinterpret_cast<const std::uint32_t*>(&low);
  high_pair = *reinterpret_cast<const std::uint32_t*>(&high);
}

template <WeightFormat Format>
struct WeightRows;

// Each lane keeps 32 of a 128-element scale block per row as four groups of 8 elements (16 words);
// group_offset places group g of quad t within a scale block, for the weights and the staged tokens alike.
template <>
struct WeightRows<WeightFormat::bf16> {
  static constexpr int kStep = 128;               // reduction elements per pipeline step of the weights
  static constexpr int kStages = 2;               // staged token blocks: the one multiplied, the next in flight
  static constexpr int kStagedRowElements = 160;  // 320 bytes: 8 lanes of a shared-memory phase on distinct banks
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

  __device__ static void to_bf16_words(const Raw& raw, int, std::uint32_t (&a)[16], std::uint32_t (&b)[16]) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      a[4 * j] = raw.a[j].x, a[4 * j + 1] = raw.a[j].y, a[4 * j + 2] = raw.a[j].z, a[4 * j + 3] = raw.a[j].w;
      b[4 * j] = raw.b[j].x, b[4 * j + 1] = raw.b[j].y, b[4 * j + 2] = raw.b[j].z, b[4 * j + 3] = raw.b[j].w;
    }
  }

  __device__ static float scale(const float*, int, int, int, int) { return 1.0f; }
};

// A step spans two scale blocks, so that each load is 16 bytes as for bf16: a step's latency is
// spent on as many bytes in flight (8-byte loads over one block left fp8 at half bf16's bandwidth).
template <>
struct WeightRows<WeightFormat::fp8_block_scaled> {
  static constexpr int kStep = 256;
  static constexpr int kStages = 3;               // staged token blocks: one multiplied, a step's worth in flight
  static constexpr int kStagedRowElements = 136;  // 272 bytes: 8 lanes of a shared-memory phase on distinct banks
  struct Raw {
    uint4 a[4], b[4];  // load j: elements 64 j + 16 quad .. + 15, i.e. groups 2 j and 2 j + 1
  };
  const std::uint8_t* row_a;
  const std::uint8_t* row_b;
  int reduction;

  __device__ static constexpr int group_offset(int group, int quad) { return 64 * (group / 2) + 16 * quad + 8 * (group % 2); }

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

  // The 16 words of scale block `block` of the step: loads 2 block and 2 block + 1.
  __device__ static void to_bf16_words(const Raw& raw, int block, std::uint32_t (&a)[16], std::uint32_t (&b)[16]) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const uint4 codes_a = raw.a[2 * block + half], codes_b = raw.b[2 * block + half];
      std::uint32_t* words_a = a + 8 * half;
      std::uint32_t* words_b = b + 8 * half;
      e4m3_quad_to_bf16(codes_a.x, words_a[0], words_a[1]), e4m3_quad_to_bf16(codes_a.y, words_a[2], words_a[3]);
      e4m3_quad_to_bf16(codes_a.z, words_a[4], words_a[5]), e4m3_quad_to_bf16(codes_a.w, words_a[6], words_a[7]);
      e4m3_quad_to_bf16(codes_b.x, words_b[0], words_b[1]), e4m3_quad_to_bf16(codes_b.y, words_b[2], words_b[3]);
      e4m3_quad_to_bf16(codes_b.z, words_b[4], words_b[5]), e4m3_quad_to_bf16(codes_b.w, words_b[6], words_b[7]);
    }
  }

  // The 128x128 block holding (row, k) of this expert: scales are [experts][rows / 128][K / 128].
  __device__ float scale(const float* scales, int expert, int rows_per_expert, int row, int k) const {
    const int blocks_per_row = reduction / kScaleBlockElements;
    const long block_row = static_cast<long>(expert) * (rows_per_expert / kScaleBlockElements) + row / kScaleBlockElements;
    return scales[block_row * blocks_per_row + k / kScaleBlockElements];
  }
};

__device__ inline void copy_async_16(void* shared_target, const void* global_source) {
  const unsigned target = static_cast<unsigned>(__cvta_generic_to_shared(shared_target));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(target), "l"(global_source));
}
__device__ inline void commit_copies() { asm volatile("cp.async.commit_group;"); }
// Waits until at most the newest `Pending` committed groups are still in flight.
template <int Pending>
__device__ inline void wait_all_but_newest() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending));
}

// One scale block of one token tile: eight mma over its four groups, B read from the staged row
// at the same offsets as A.
template <class Rows>
__device__ inline void multiply_block(const std::uint32_t (&a)[16], const std::uint32_t (&b)[16],
                                      const std::uint16_t* staged_row, int quad, float (&partial)[4]) {
  std::uint32_t tokens[16];
#pragma unroll
  for (int group = 0; group < 4; ++group) {
    const uint4 loaded = *reinterpret_cast<const uint4*>(staged_row + Rows::group_offset(group, quad));
    tokens[4 * group] = loaded.x, tokens[4 * group + 1] = loaded.y;
    tokens[4 * group + 2] = loaded.z, tokens[4 * group + 3] = loaded.w;
  }
#pragma unroll
  for (int m = 0; m < 8; ++m) mma_bf16(partial, a[2 * m], b[2 * m], a[2 * m + 1], b[2 * m + 1], tokens[2 * m], tokens[2 * m + 1]);
}

}  // namespace moeplan::gpu
