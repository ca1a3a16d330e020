#pragma once
// bf16 rows to e4m3 token groups (one scale per row and 128 columns), the form FP8 GEMMs read their
// activations in (kernels.md: the fused-MoE FP8 paths and DeepGEMM). moe::quantize_token_groups is
// the host twin the checks compare with: the same scale (largest magnitude / 448) and rounding.
#include <cstdint>

#include <cuda_runtime.h>

namespace moeplan::gpu {

constexpr int kTokenGroupElements = 128;  // columns sharing one scale

// The rows an FP8 streaming GEMM reads: codes [rows][width] e4m3 and scales [rows][width / 128].
struct TokenGroups {
  std::uint8_t* codes = nullptr;
  float* scales = nullptr;
};

// rows: [row_count][width] bf16, width a multiple of 128. With sorted_entries, rows whose entry is
// padding (negative) are skipped: nothing reads them.
void launch_token_group_quantize(const std::uint16_t* rows, int row_count, int width,
                                 const std::int32_t* sorted_entries, TokenGroups output, cudaStream_t stream);

}  // namespace moeplan::gpu
