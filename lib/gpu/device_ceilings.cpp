#include "gpu/device_ceilings.hpp"

#include "gpu/cublas_gemm.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/event_timer.hpp"
#include "gpu/random_fill.hpp"

namespace moeplan::gpu {
namespace {

constexpr long kCopyBytes = 2l << 30;  // far past L2, as in [moeplan-h200-measurements]
constexpr int kGemmSize = 8192;

double copy_bandwidth(cudaStream_t stream) {
  DeviceBuffer<std::uint16_t> source(kCopyBytes / 2), target(kCopyBytes / 2);
  fill_random_bf16(source.data(), static_cast<long>(source.size()), 1.0f, 1, stream);
  const Timing timing = time_on_stream(
      [&] {
        check_cuda(cudaMemcpyAsync(target.data(), source.data(), kCopyBytes, cudaMemcpyDeviceToDevice, stream), "copy");
      },
      stream);
  return 2.0 * kCopyBytes / timing.median_seconds;  // read + write
}

double gemm_rate(cudaStream_t stream) {
  const std::size_t elements = static_cast<std::size_t>(kGemmSize) * kGemmSize;
  DeviceBuffer<std::uint16_t> a(elements), b(elements), c(elements);
  fill_random_bf16(a.data(), static_cast<long>(elements), 1.0f, 2, stream);
  fill_random_bf16(b.data(), static_cast<long>(elements), 1.0f, 3, stream);
  CublasHandle handle(stream);
  const Timing timing = time_on_stream(
      [&] { gemm_rows_by_weight(handle.get(), a.data(), b.data(), c.data(), kGemmSize, kGemmSize, kGemmSize); },
      stream);
  return 2.0 * kGemmSize * kGemmSize * static_cast<double>(kGemmSize) / timing.median_seconds;
}

}  // namespace

bool cuda_device_present() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

DeviceFacts read_device_facts() {
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  DeviceFacts facts;
  facts.name = properties.name;
  facts.multiprocessors = properties.multiProcessorCount;
  facts.l2_bytes = properties.l2CacheSize;
  facts.memory_bytes = static_cast<long>(properties.totalGlobalMem);
  check_cuda(cudaDriverGetVersion(&facts.driver_version), "cudaDriverGetVersion");
  check_cuda(cudaRuntimeGetVersion(&facts.runtime_version), "cudaRuntimeGetVersion");
  return facts;
}

Ceilings measure_ceilings(cudaStream_t stream) {
  Ceilings ceilings;
  ceilings.copy_bytes_per_second = copy_bandwidth(stream);
  ceilings.copy_buffer_bytes = static_cast<double>(kCopyBytes);
  ceilings.bf16_gemm_flops_per_second = gemm_rate(stream);
  ceilings.gemm_size = kGemmSize;
  return ceilings;
}

}  // namespace moeplan::gpu
