#include "gpu/sweep/device_inventory.hpp"

#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/device_attribute.hpp"
#include "gpu/device_ceilings.hpp"
#include "gpu/sweep/nccl_group.hpp"

namespace moeplan::gpu {

calib::DeviceRecord inventory_devices(int count, bool with_nccl) {
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  const DeviceFacts facts = read_device_facts();
  for (int device = 1; device < count; ++device) {
    cudaDeviceProp properties{};
    check_cuda(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    if (facts.name != properties.name) {
      throw std::runtime_error("GPU " + std::to_string(device) + " is a " + properties.name + ", GPU 0 a " +
                               facts.name + ": calibrate one kind of GPU at a time (CUDA_VISIBLE_DEVICES)");
    }
  }
  calib::DeviceRecord record;
  record.name = facts.name;
  record.count = count;
  record.memory_bytes = facts.memory_bytes;
  record.multiprocessors = facts.multiprocessors;
  record.sm_clock_khz = device_attribute(cudaDevAttrClockRate, 0);
  record.memory_clock_khz = device_attribute(cudaDevAttrMemoryClockRate, 0);
  record.driver_version = facts.driver_version;
  record.runtime_version = facts.runtime_version;
  record.nccl_version = with_nccl ? nccl_version() : 0;
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  const Ceilings ceilings = measure_ceilings(stream);
  cudaStreamDestroy(stream);
  record.copy_bytes_per_second = ceilings.copy_bytes_per_second;
  record.bf16_gemm_flops_per_second = ceilings.bf16_gemm_flops_per_second;
  return record;
}

}  // namespace moeplan::gpu
