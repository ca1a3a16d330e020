#pragma once
// The prefill-shape grouped GEMM: hundreds or thousands of rows per expert make each expert's
// GEMM compute-bound, where cuBLAS serves well; one call per non-empty expert, so the host reads
// the per-expert counts first. bf16 weights multiply bf16 rows (cublasGemmEx); e4m3 weights with
// 128x128 block scales multiply e4m3 token groups on FP8 tensor cores (gpu/block_scaled_gemm.hpp).
// An expert's GEMM at a few dozen rows fills a few dozen CTAs, so experts run kLibraryLanes side by side.
#include <cstdint>
#include <memory>
#include <vector>

#include <cuda_runtime.h>

#include "gpu/align_kernels.hpp"
#include "gpu/block_scaled_gemm.hpp"
#include "gpu/cublas_gemm.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/expert_weights_view.hpp"
#include "gpu/gemm_rows.hpp"
#include "gpu/stream_fan.hpp"

namespace moeplan::gpu {

constexpr int kLibraryLanes = 4;

class LibraryGemm {
 public:
  // block_rows: the alignment's block size (align's block_experts map rows / block_rows to slots).
  LibraryGemm(cudaStream_t stream, int max_rows, int block_rows, const ExpertWeightsView& weights);

  // Copies the per-expert counts and offsets to the host (synchronises the stream) and keeps the
  // alignment for the GEMMs that follow.
  void read_segments(const AlignmentBuffers& alignment);
  // [doc-002]: GEMM1 (w13) per expert, then SiLU-and-mul; rows gathered from hidden_states (token order)
  // over the first `rows` aligned rows.
  void gate_up(GemmRows hidden_states, int top_k, int rows, std::uint16_t* activation);
  // [doc-002]: GEMM2 (w2) per expert; activation in aligned order over the first `rows` rows.
  void down(GemmRows activation, int rows, std::uint16_t* expert_rows);

 private:
  bool block_scaled() const { return weights_.format == WeightFormat::fp8_block_scaled; }
  // Each expert's slice of `input` (aligned order) times its weights [n][k] into output's rows.
  void per_expert(const void* input, const float* expert_major_scales, const void* weights,
                  const DeviceBuffer<float>& weight_scales, std::uint16_t* output, int n, int k);

  cudaStream_t stream_;
  int block_rows_;
  ExpertWeightsView weights_;
  AlignmentBuffers alignment_;
  StreamFan lanes_;
  std::vector<std::unique_ptr<CublasHandle>> handles_;                // bf16: one per lane
  std::vector<std::unique_ptr<BlockScaledGemm>> block_scaled_gemms_;  // e4m3: one per lane
  std::vector<std::int32_t> counts_, offsets_;
  DeviceBuffer<std::uint16_t> permuted_, gate_up_;
  // e4m3 weights: the gathered token codes, their expert-major scales, and the weights' block scales
  // restrided for cuBLASLt.
  DeviceBuffer<std::uint8_t> permuted_codes_;
  DeviceBuffer<float> expert_major_scales_, w13_scales_, w2_scales_;
};

}  // namespace moeplan::gpu
