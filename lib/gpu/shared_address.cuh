#pragma once
// The 32-bit shared-memory address PTX instructions take (cp.async, TMA, mbarrier, wgmma descriptors)
// for a generic pointer into shared memory.
#include <cstdint>

namespace moeplan::gpu {

__device__ inline std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

}  // namespace moeplan::gpu
