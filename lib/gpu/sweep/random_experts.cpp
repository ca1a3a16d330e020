#include "gpu/sweep/random_experts.hpp"

#include <cmath>

#include "gpu/random_fill.hpp"

namespace moeplan::gpu {

RandomExperts random_experts(int experts, int hidden, int intermediate, WeightFormat format, std::uint64_t seed,
                             cudaStream_t stream) {
  const long w13_elements = static_cast<long>(experts) * 2 * intermediate * hidden;
  const long w2_elements = static_cast<long>(experts) * hidden * intermediate;
  const long element_bytes = format == WeightFormat::bf16 ? 2 : 1;
  RandomExperts weights;
  weights.w13 = DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(w13_elements * element_bytes));
  weights.w2 = DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(w2_elements * element_bytes));
  if (format == WeightFormat::bf16) {
    fill_random_bf16(reinterpret_cast<std::uint16_t*>(weights.w13.data()), w13_elements,
                     static_cast<float>(std::sqrt(3.0 / hidden)), seed, stream);
    fill_random_bf16(reinterpret_cast<std::uint16_t*>(weights.w2.data()), w2_elements,
                     static_cast<float>(std::sqrt(3.0 / intermediate)), seed + 1, stream);
  } else {
    fill_random_e4m3(weights.w13.data(), w13_elements, seed, stream);
    fill_random_e4m3(weights.w2.data(), w2_elements, seed + 1, stream);
    // [doc-001]: one fp32 scale per 128 x 128 block.
    weights.w13_scales = DeviceBuffer<float>(static_cast<std::size_t>(w13_elements / (128 * 128)));
    weights.w2_scales = DeviceBuffer<float>(static_cast<std::size_t>(w2_elements / (128 * 128)));
    fill_random_float(weights.w13_scales.data(), static_cast<long>(weights.w13_scales.size()), 1e-3f, seed + 2, stream);
    fill_random_float(weights.w2_scales.data(), static_cast<long>(weights.w2_scales.size()), 1e-3f, seed + 3, stream);
  }
  weights.view = {format,
                  experts,
                  hidden,
                  intermediate,
                  weights.w13.data(),
                  weights.w13_scales.data(),
                  weights.w2.data(),
                  weights.w2_scales.data()};
  return weights;
}

}  // namespace moeplan::gpu
