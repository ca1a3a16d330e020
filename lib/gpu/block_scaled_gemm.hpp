#pragma once
// FP8 GEMM on Hopper's FP8 tensor cores with DeepSeek-V3's scaling: e4m3 weights with one scale per
// 128x128 block times e4m3 token groups with one scale per row and 128 columns, FP32 accumulation,
// bf16 out. cuBLASLt serves it since cuBLAS 12.9 (CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F and
// _VEC128_32F; NVIDIA, "Boosting Matrix Multiplication Speed and Flexibility with NVIDIA cuBLAS 12.9").
#include <cstdint>
#include <map>
#include <tuple>

#include <cublasLt.h>
#include <cuda_runtime.h>

#include "gpu/device_buffer.hpp"
#include "gpu/scale_alignment.hpp"
#include "moe_reference/fp8_format.hpp"

namespace moeplan::gpu {

// m x k e4m3 codes, row-major; scales [k / 128][m] (outer-dim-major, gpu/token_group_gather.hpp).
struct BlockScaledRows {
  const std::uint8_t* codes = nullptr;
  const float* scales = nullptr;
};

// n x k e4m3 codes, row-major; scales [n / 128][block_scale_stride(k)].
struct BlockScaledWeight {
  const std::uint8_t* codes = nullptr;
  const float* scales = nullptr;
};

// The stride of a weight's rows of 128x128-block scales: k / 128, aligned (gpu/scale_alignment.hpp).
constexpr int block_scale_stride(int k) { return aligned_scale_run(k / moe_reference::kScaleBlock); }

// One stream's worth: calls on one instance run one after another (they share its workspace).
class BlockScaledGemm {
 public:
  BlockScaledGemm();
  ~BlockScaledGemm();
  BlockScaledGemm(const BlockScaledGemm&) = delete;
  BlockScaledGemm& operator=(const BlockScaledGemm&) = delete;

  // output[m][n] = sum over k of rows[m][k] * weight[n][k], both as their codes times their scales;
  // output row-major bf16. n and k multiples of 128, m of 4 (each block's row scales 16-byte aligned).
  void multiply(const BlockScaledRows& rows, const BlockScaledWeight& weight, std::uint16_t* output, int m, int n,
                int k, cudaStream_t stream);

 private:
  const cublasLtMatmulAlgo_t& algorithm(int m, int n, int k);

  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t operation_ = nullptr;
  DeviceBuffer<std::uint8_t> workspace_;
  std::map<std::tuple<int, int, int>, cublasLtMatmulAlgo_t> algorithms_;
};

}  // namespace moeplan::gpu
