#include "gpu/device_attribute.hpp"

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

}  // namespace moeplan::gpu
