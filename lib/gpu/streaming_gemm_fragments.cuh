#pragma once
// Register fragments of the streaming GEMM (mma.sync m16n8k16, bf16 in, fp32 accumulate).
// Weights are operand A (16 weight rows), token rows operand B (8 tokens): with few tokens the
// weights fill the wide side of the instruction.
//
// A reduction is free to visit k in any order as long as both operands agree, so each lane
// loads 16 contiguous bytes per row and the fragment registers are assigned from them: word w of
// quad t (lane % 4) holds elements k0 + 32 * (w / 4) + 8 * t + 2 * (w % 4) + {0, 1}; mma m of a
// chunk takes words 2m and 2m + 1 as its k {2t, 2t+1} and {2t+8, 2t+9} pairs, for A and B alike.
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "gpu/expert_weights_view.hpp"

namespace moeplan::gpu {

constexpr int kChunk = 128;  // reduction elements per step; one fp8 scale block

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

// Two e4m3 values to two bf16: exact, since every e4m3 value is a bf16 value.
__device__ inline std::uint32_t e4m3_pair_to_bf16(std::uint16_t pair) {
  const __half2_raw halves = __nv_cvt_fp8x2_to_halfraw2(pair, __NV_E4M3);
  const float2 values = __half22float2(__half2(halves));
  const __nv_bfloat162 converted = __float22bfloat162_rn(values);
  return *reinterpret_cast<const std::uint32_t*>(&converted);
}

template <WeightFormat Format>
struct WeightRows;

template <>
struct WeightRows<WeightFormat::bf16> {
  struct Raw {
    uint4 a[4], b[4];
  };
  const std::uint16_t* row_a;
  const std::uint16_t* row_b;

  __device__ WeightRows(const void* weights, long first_row, int a, int b, int reduction)
      : row_a(static_cast<const std::uint16_t*>(weights) + (first_row + a) * reduction),
        row_b(static_cast<const std::uint16_t*>(weights) + (first_row + b) * reduction) {}

  __device__ Raw load(int k0, int quad) const {
    Raw raw;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      raw.a[j] = load_streaming_16(row_a + k0 + 32 * j + 8 * quad);
      raw.b[j] = load_streaming_16(row_b + k0 + 32 * j + 8 * quad);
    }
    return raw;
  }

  __device__ static void to_bf16_words(const Raw& raw, std::uint32_t (&a)[16], std::uint32_t (&b)[16]) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      a[4 * j] = raw.a[j].x, a[4 * j + 1] = raw.a[j].y, a[4 * j + 2] = raw.a[j].z, a[4 * j + 3] = raw.a[j].w;
      b[4 * j] = raw.b[j].x, b[4 * j + 1] = raw.b[j].y, b[4 * j + 2] = raw.b[j].z, b[4 * j + 3] = raw.b[j].w;
    }
  }

  __device__ static float scale(const float*, int, int, int, int) { return 1.0f; }
};

template <>
struct WeightRows<WeightFormat::fp8_block_scaled> {
  struct Raw {
    uint2 a[4], b[4];
  };
  const std::uint8_t* row_a;
  const std::uint8_t* row_b;
  int reduction;

  __device__ WeightRows(const void* weights, long first_row, int a, int b, int reduction_length)
      : row_a(static_cast<const std::uint8_t*>(weights) + (first_row + a) * reduction_length),
        row_b(static_cast<const std::uint8_t*>(weights) + (first_row + b) * reduction_length),
        reduction(reduction_length) {}

  __device__ Raw load(int k0, int quad) const {
    Raw raw;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      raw.a[j] = load_streaming_8(row_a + k0 + 32 * j + 8 * quad);
      raw.b[j] = load_streaming_8(row_b + k0 + 32 * j + 8 * quad);
    }
    return raw;
  }

  __device__ static void to_bf16_words(const Raw& raw, std::uint32_t (&a)[16], std::uint32_t (&b)[16]) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      a[4 * j] = e4m3_pair_to_bf16(raw.a[j].x & 0xFFFF), a[4 * j + 1] = e4m3_pair_to_bf16(raw.a[j].x >> 16);
      a[4 * j + 2] = e4m3_pair_to_bf16(raw.a[j].y & 0xFFFF), a[4 * j + 3] = e4m3_pair_to_bf16(raw.a[j].y >> 16);
      b[4 * j] = e4m3_pair_to_bf16(raw.b[j].x & 0xFFFF), b[4 * j + 1] = e4m3_pair_to_bf16(raw.b[j].x >> 16);
      b[4 * j + 2] = e4m3_pair_to_bf16(raw.b[j].y & 0xFFFF), b[4 * j + 3] = e4m3_pair_to_bf16(raw.b[j].y >> 16);
    }
  }

  // The 128x128 block holding (row, k0) of this expert: scales are [experts][rows / 128][K / 128].
  __device__ float scale(const float* scales, int expert, int rows_per_expert, int row, int k0) const {
    const int blocks_per_row = reduction / kChunk;
    const long block_row = static_cast<long>(expert) * (rows_per_expert / kChunk) + row / kChunk;
    return scales[block_row * blocks_per_row + k0 / kChunk];
  }
};

// Staged token rows: 128 elements used, padded to 320 bytes so that the 8 lanes of each
// 16-byte shared-memory phase (two rows, four quads) fall on distinct banks.
constexpr int kStagedRowElements = 160;

__device__ inline void copy_async_16(void* shared_target, const void* global_source) {
  const unsigned target = static_cast<unsigned>(__cvta_generic_to_shared(shared_target));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(target), "l"(global_source));
}
__device__ inline void commit_copies() { asm volatile("cp.async.commit_group;"); }
// Waits until at most one committed group (the newest) is still in flight.
__device__ inline void wait_all_but_newest() { asm volatile("cp.async.wait_group 1;"); }

// One 128-wide chunk of one token tile: eight mma, B read from the staged rows with the same
// k order as A.
__device__ inline void multiply_chunk(const std::uint32_t (&a)[16], const std::uint32_t (&b)[16],
                                      const std::uint16_t* staged_row, int quad, float (&partial)[4]) {
  std::uint32_t tokens[16];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const uint4 loaded = *reinterpret_cast<const uint4*>(staged_row + 32 * j + 8 * quad);
    tokens[4 * j] = loaded.x, tokens[4 * j + 1] = loaded.y, tokens[4 * j + 2] = loaded.z, tokens[4 * j + 3] = loaded.w;
  }
#pragma unroll
  for (int m = 0; m < 8; ++m) mma_bf16(partial, a[2 * m], b[2 * m], a[2 * m + 1], b[2 * m + 1], tokens[2 * m], tokens[2 * m + 1]);
}

}  // namespace moeplan::gpu
