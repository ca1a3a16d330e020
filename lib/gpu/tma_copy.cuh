#pragma once
// TMA box copies (PTX ISA: cp.async.bulk.tensor) and the shared-memory barriers they complete on
// (mbarrier): one thread announces a phase's bytes, the copies count them off as they land, and the
// phase completes when all have.
#include <cstdint>

#include <cuda.h>

#include "gpu/shared_address.cuh"

namespace moeplan::gpu {

// A barrier whose phase completes once `arrivals` threads have arrived and the bytes they announced landed.
__device__ inline void init_barrier(std::uint64_t* barrier, int arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)), "r"(arrivals) : "memory");
}

// Makes initialised barriers visible to the TMA unit; a CTA barrier after it extends that to every thread.
__device__ inline void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

// Arrives on `barrier` and announces `bytes` that this phase's copies will deliver.
__device__ inline void arrive_expecting(std::uint64_t* barrier, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
}

// Arrives on `barrier` (release: this thread's earlier shared-memory reads are done with what it guards).
__device__ inline void arrive(std::uint64_t* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(barrier)) : "memory");
}

__device__ inline bool phase_done(std::uint64_t* barrier, int parity) {
  unsigned done = 0;
  asm volatile(
      "{\n"
      ".reg .pred complete;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
      "selp.u32 %0, 1, 0, complete;\n"
      "}\n"
      : "=r"(done)
      : "r"(shared_address(barrier)), "r"(parity)
      : "memory");
  return done != 0;
}

// Waits for the phase of `barrier` with parity `parity` (0 for its first phase, then alternating).
__device__ inline void wait_phase(std::uint64_t* barrier, int parity) {
  while (!phase_done(barrier, parity)) {}
}

// Copies the box at (k, 8-row group, expert) of `map` (gpu/tensor_map.hpp) to `shared_target`
// (1024-byte aligned under a 128-byte swizzle), counting its bytes off `barrier`.
__device__ inline void copy_box(void* shared_target, const CUtensorMap* map, int k, int group, int expert,
                                std::uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, 0, 0, %3, "
      "%4}], [%5];" ::"r"(shared_address(shared_target)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(k), "r"(group), "r"(expert), "r"(shared_address(barrier))
      : "memory");
}

}  // namespace moeplan::gpu
