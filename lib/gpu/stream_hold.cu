#include "gpu/stream_hold.hpp"

#include <cstdint>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {
namespace {

__device__ std::uint64_t nanoseconds_now() {
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void hold_kernel(const volatile int* released, std::uint64_t most_nanoseconds) {
  const std::uint64_t start = nanoseconds_now();
  while (*released == 0 && nanoseconds_now() - start < most_nanoseconds) {}
}

}  // namespace

StreamHold::StreamHold() {
  void* flag = nullptr;
  check_cuda(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc(stream hold flag)");
  released_ = static_cast<int*>(flag);
  *released_ = 1;
  const cudaError_t mapped = cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_released_), released_, 0);
  if (mapped != cudaSuccess) cudaFreeHost(released_);  // the destructor does not run for a throwing constructor
  check_cuda(mapped, "cudaHostGetDevicePointer(stream hold flag)");
}

StreamHold::~StreamHold() { cudaFreeHost(released_); }

void StreamHold::hold(cudaStream_t stream) {
  __atomic_store_n(released_, 0, __ATOMIC_SEQ_CST);
  hold_kernel<<<1, 1, 0, stream>>>(device_released_, static_cast<std::uint64_t>(kMostHoldSeconds * 1e9));
  check_launch("hold_kernel");
}

void StreamHold::release() { __atomic_store_n(released_, 1, __ATOMIC_SEQ_CST); }

}  // namespace moeplan::gpu
