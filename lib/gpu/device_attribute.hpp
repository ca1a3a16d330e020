#pragma once
// One attribute of a CUDA device (cudaDeviceGetAttribute), checked.
#include <cuda_runtime.h>

namespace moeplan::gpu {

int device_attribute(cudaDeviceAttr which, int device);
int current_device();

}  // namespace moeplan::gpu
