#pragma once
// The facts and the two measured ceilings a roofline fraction is taken against: device-to-device
// copy bandwidth (bytes read + written) and the dense bf16 GEMM rate through cuBLAS, random data.
#include <string>

#include <cuda_runtime.h>

namespace moeplan::gpu {

struct DeviceFacts {
  std::string name;
  int multiprocessors = 0;
  long l2_bytes = 0;
  long memory_bytes = 0;
  int driver_version = 0;
  int runtime_version = 0;
};

struct Ceilings {
  double copy_bytes_per_second = 0;
  double copy_buffer_bytes = 0;
  double bf16_gemm_flops_per_second = 0;
  int gemm_size = 0;  // m = n = k
};

bool cuda_device_present();
DeviceFacts read_device_facts();
Ceilings measure_ceilings(cudaStream_t stream);

}  // namespace moeplan::gpu
