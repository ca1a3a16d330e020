#pragma once
// Hopper's warpgroup MMA (wgmma, sm_90a; PTX ISA "Asynchronous Warpgroup Level Matrix Multiply"):
// the four warps of a warpgroup multiply a 64-row A by an N-row B, both read from shared memory
// through descriptors, into fp32 accumulators spread over the warpgroup's registers. Thread
// (warp w, lane 4g + t) holds, for each 8-column group j: d[4j], d[4j+1] = row 16w+g, columns
// 8j+2t and 8j+2t+1; d[4j+2], d[4j+3] = row 16w+g+8, the same columns.
//
// Operands lie in the 128-byte swizzled K-major layout: each row's 128 bytes of k are one line of
// an 8-row, 1024-byte atom, their 16-byte chunks stored at chunk ^ (row % 8) so that the eight rows'
// same chunk sit on distinct banks. The descriptor names where the k step starts inside the atom
// and the byte distance from one 8-row atom to the next (stride); the hardware applies the swizzle.
#include <cstdint>

#include "gpu/shared_address.cuh"

namespace moeplan::gpu {

constexpr int kSwizzleBytes = 128;             // one row of an atom
constexpr int kAtomBytes = 8 * kSwizzleBytes;  // atoms start 1024-byte aligned

// Where chunk `chunk` (16 bytes) of row `row` lies in a swizzled region.
__host__ __device__ constexpr int swizzled_offset(int row, int chunk) {
  return row * kSwizzleBytes + 16 * (chunk ^ (row % 8));
}

__device__ inline std::uint64_t swizzled_descriptor(const void* shared) {
  // Fields (16-byte units): start address; leading offset 1 (unused when k fits one row); stride
  // 1024 bytes; mode 1 in bits 62-63: 128-byte swizzle.
  const std::uint32_t address = shared_address(shared);
  return static_cast<std::uint64_t>((address & 0x3FFFF) >> 4) | std::uint64_t{1} << 16 |
         static_cast<std::uint64_t>(kAtomBytes >> 4) << 32 | std::uint64_t{1} << 62;
}

// The descriptor of an operand `bytes` (a multiple of 16) further on. The start address field cannot
// carry into the next: shared memory addresses stay under 256 KB, the field's reach.
__device__ inline std::uint64_t descriptor_advanced(std::uint64_t descriptor, int bytes) {
  return descriptor + static_cast<std::uint64_t>(bytes >> 4);
}

// Orders this thread's earlier register and shared-memory accesses before the next wgmma.
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ inline void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ inline void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

#define MOEPLAN_D4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define MOEPLAN_WGMMA_PREFIX(predicate) \
  "{.reg .pred p; setp.ne.b32 p, %" #predicate ", 0; wgmma.mma_async.sync.aligned."
#define MOEPLAN_WGMMA_N8(shape, tail)                                                   \
  asm volatile(MOEPLAN_WGMMA_PREFIX(6) shape " {%0, %1, %2, %3}, %4, %5, p, " tail ";}" \
               : MOEPLAN_D4(0)                                                          \
               : "l"(a), "l"(b), "r"(accumulate))
#define MOEPLAN_WGMMA_N16(shape, tail)                                                                   \
  asm volatile(MOEPLAN_WGMMA_PREFIX(10) shape " {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, " tail ";}" \
               : MOEPLAN_D4(0), MOEPLAN_D4(4)                                                            \
               : "l"(a), "l"(b), "r"(accumulate))
#define MOEPLAN_WGMMA_N32(shape, tail)                                                                            \
  asm volatile(MOEPLAN_WGMMA_PREFIX(18) shape                                                                     \
               " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, " tail ";}" \
               : MOEPLAN_D4(0), MOEPLAN_D4(4), MOEPLAN_D4(8), MOEPLAN_D4(12)                                      \
               : "l"(a), "l"(b), "r"(accumulate))
#define MOEPLAN_WGMMA_N64(shape, tail)                                                                        \
  asm volatile(MOEPLAN_WGMMA_PREFIX(34) shape                                                                 \
               " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, " tail ";}"         \
               : MOEPLAN_D4(0), MOEPLAN_D4(4), MOEPLAN_D4(8), MOEPLAN_D4(12), MOEPLAN_D4(16), MOEPLAN_D4(20), \
                 MOEPLAN_D4(24), MOEPLAN_D4(28)                                                               \
               : "l"(a), "l"(b), "r"(accumulate))

// The instruction for the caller's N: shape "m64n<N>" + k_and_types, then the caller's immediates.
#define MOEPLAN_WGMMA_FOR_N(k_and_types, tail)                                             \
  static_assert(N == 8 || N == 16 || N == 32 || N == 64, "N: 8, 16, 32 or 64 token rows"); \
  if constexpr (N == 8) MOEPLAN_WGMMA_N8("m64n8" k_and_types, tail);                       \
  if constexpr (N == 16) MOEPLAN_WGMMA_N16("m64n16" k_and_types, tail);                    \
  if constexpr (N == 32) MOEPLAN_WGMMA_N32("m64n32" k_and_types, tail);                    \
  if constexpr (N == 64) MOEPLAN_WGMMA_N64("m64n64" k_and_types, tail)

// d (+)= A . B^T over 32 e4m3 elements of k; accumulate = 0 overwrites d.
template <int N>
__device__ inline void wgmma_e4m3(float (&d)[N / 2], std::uint64_t a, std::uint64_t b, int accumulate) {
  MOEPLAN_WGMMA_FOR_N("k32.f32.e4m3.e4m3", "1, 1");
}

// d (+)= A . B^T over 16 bf16 elements of k, both K-major (the two 0s: neither transposed).
template <int N>
__device__ inline void wgmma_bf16(float (&d)[N / 2], std::uint64_t a, std::uint64_t b, int accumulate) {
  MOEPLAN_WGMMA_FOR_N("k16.f32.bf16.bf16", "1, 1, 0, 0");
}

#undef MOEPLAN_WGMMA_FOR_N
#undef MOEPLAN_WGMMA_N64
#undef MOEPLAN_WGMMA_N32
#undef MOEPLAN_WGMMA_N16
#undef MOEPLAN_WGMMA_N8
#undef MOEPLAN_WGMMA_PREFIX
#undef MOEPLAN_D4

}  // namespace moeplan::gpu
