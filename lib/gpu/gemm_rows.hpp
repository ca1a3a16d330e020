#pragma once
// The rows a grouped GEMM reads: bf16 [rows][K] for bf16 weights; for e4m3 weights, e4m3 codes
// [rows][K] with group_scales [rows][K / 128] (gpu/token_group_quantize.hpp).
namespace moeplan::gpu {

struct GemmRows {
  const void* values = nullptr;
  const float* group_scales = nullptr;
};

}  // namespace moeplan::gpu
