#pragma once
// A kernel's dynamic shared memory, set before its launch: the bytes it may take, shared memory
// preferred over L1 (its operands arrive by TMA or cp.async, not through L1), and how many of its
// CTAs then fit an SM.
#include <string>

#include <cuda_runtime.h>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {

template <class Kernel>
int fit_shared_memory(Kernel kernel, int threads, int shared_bytes, const std::string& name) {
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes),
             ("cudaFuncSetAttribute(" + name + ", max dynamic shared memory)").c_str());
  check_cuda(
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
      ("cudaFuncSetAttribute(" + name + ", shared memory carveout)").c_str());
  int per_multiprocessor = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, threads, shared_bytes),
             ("cudaOccupancyMaxActiveBlocksPerMultiprocessor(" + name + ")").c_str());
  return per_multiprocessor;
}

}  // namespace moeplan::gpu
