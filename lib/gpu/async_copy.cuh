#pragma once
// Asynchronous global-to-shared copies (cp.async, PTX ISA): issued, committed as a group, and
// waited for while later groups stay in flight.
#include "gpu/shared_address.cuh"

namespace moeplan::gpu {

// 16 bytes, cached in L2 only: each byte is read once by this CTA.
__device__ inline void copy_async_16(void* shared_target, const void* global_source) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(shared_target)), "l"(global_source));
}
__device__ inline void copy_async_4(void* shared_target, const void* global_source) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(shared_address(shared_target)), "l"(global_source));
}
__device__ inline void commit_copies() { asm volatile("cp.async.commit_group;"); }
// Waits until at most the newest `Pending` committed groups are still in flight.
template <int Pending>
__device__ inline void wait_all_but_newest() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}
// Makes this thread's completed copies visible to reads through the async proxy (wgmma operands);
// a barrier after it extends that to the CTA (PTX ISA, memory consistency model: proxies).
__device__ inline void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

}  // namespace moeplan::gpu
