#pragma once
// Device expert weights as the kernels read them (the w13 / w2 layout of [doc-002], per local expert).
#include <cstdint>

namespace moeplan::gpu {

enum class WeightFormat { bf16, fp8_block_scaled };

struct ExpertWeightsView {
  WeightFormat format = WeightFormat::bf16;
  int num_experts = 0;
  int hidden = 0;
  int intermediate = 0;
  const void* w13 = nullptr;          // [experts][2 * intermediate][hidden]: gate rows, then up rows
  const float* w13_scales = nullptr;  // fp8: [experts][2 * intermediate / 128][hidden / 128]
  const void* w2 = nullptr;           // [experts][hidden][intermediate]
  const float* w2_scales = nullptr;   // fp8: [experts][hidden / 128][intermediate / 128]

  int element_bytes() const { return format == WeightFormat::bf16 ? 2 : 1; }
};

}  // namespace moeplan::gpu
