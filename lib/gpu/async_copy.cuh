#pragma once
// Asynchronous global-to-shared copies (cp.async, PTX ISA), each thread's counted on an mbarrier.
#include <cstdint>

#include "gpu/shared_address.cuh"

namespace moeplan::gpu {

// 16 bytes, cached in L2 only: each byte is read once by this CTA.
__device__ inline void copy_async_16(void* shared_target, const void* global_source) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(shared_target)), "l"(global_source));
}
__device__ inline void copy_async_4(void* shared_target, const void* global_source) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(shared_address(shared_target)), "l"(global_source));
}
// Arrives on `barrier` once this thread's earlier copies have landed. noinc: the arrival is one the
// barrier was initialised to count, not an extra one (PTX ISA: cp.async.mbarrier.arrive).
__device__ inline void arrive_when_copies_land(std::uint64_t* barrier) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(shared_address(barrier)) : "memory");
}

// Waits until this thread's copies have landed (a thread leaves none in flight when it exits).
__device__ inline void wait_all_copies() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// Makes this thread's completed copies visible to reads through the async proxy (wgmma operands);
// a barrier after it extends that to the CTA (PTX ISA, memory consistency model: proxies).
__device__ inline void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

}  // namespace moeplan::gpu
