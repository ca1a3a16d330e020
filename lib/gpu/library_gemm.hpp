#pragma once
// The prefill-shape grouped GEMM: hundreds or thousands of rows per expert make each expert's
// GEMM compute-bound, where cuBLAS serves well; one call per non-empty expert, so the host reads
// the per-expert counts first. FP8 weights are dequantised per expert into bf16 before the call.
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "gpu/align_kernels.hpp"
#include "gpu/cublas_gemm.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/expert_weights_view.hpp"

namespace moeplan::gpu {

class LibraryGemm {
 public:
  LibraryGemm(cudaStream_t stream, int max_rows, const ExpertWeightsView& weights);

  // Copies the per-expert counts and offsets to the host (synchronises the stream).
  void read_segments(const AlignmentBuffers& alignment);
  // doc 002: GEMM1 (w13) per expert, then SiLU-and-mul; rows gathered from hidden_states.
  void gate_up(const std::uint16_t* hidden_states, int top_k, const std::int32_t* sorted_entries, int rows,
               std::uint16_t* activation);
  // doc 002: GEMM2 (w2) per expert.
  void down(const std::uint16_t* activation, std::uint16_t* expert_rows);

 private:
  const std::uint16_t* bf16_weights(const void* weights, const float* scales, int expert, int rows, int cols);

  cudaStream_t stream_;
  ExpertWeightsView weights_;
  CublasHandle handle_;
  std::vector<std::int32_t> counts_, offsets_;
  DeviceBuffer<std::uint16_t> permuted_, gate_up_, dequantized_;
};

}  // namespace moeplan::gpu
