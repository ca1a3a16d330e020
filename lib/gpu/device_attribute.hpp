#pragma once
// One attribute of a CUDA device (cudaDeviceGetAttribute), checked.
#include <cuda_runtime.h>

namespace moeplan::gpu {

int device_attribute(cudaDeviceAttr which, int device);
int current_device();
int multiprocessors();  // the current device's
// The shared memory one CTA may take on the current device when `ctas` share an SM: its 1 / ctas of the
// SM's, less the bytes the runtime reserves per CTA, and no more than a CTA may opt in to.
int shared_memory_share(int ctas);

}  // namespace moeplan::gpu
