#include "gpu/device_attribute.hpp"

#include <algorithm>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {

int device_attribute(cudaDeviceAttr which, int device) {
  int value = 0;
  check_cuda(cudaDeviceGetAttribute(&value, which, device), "cudaDeviceGetAttribute");
  return value;
}

int current_device() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

int multiprocessors() { return device_attribute(cudaDevAttrMultiProcessorCount, current_device()); }

int shared_memory_share(int ctas) {
  const int device = current_device();
  return std::min(device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) / ctas -
                      device_attribute(cudaDevAttrReservedSharedMemoryPerBlock, device),
                  device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
}

}  // namespace moeplan::gpu
