#include "gpu/library_gemm.hpp"

#include <algorithm>

#include "gpu/elementwise_kernels.hpp"

namespace moeplan::gpu {

LibraryGemm::LibraryGemm(cudaStream_t stream, int max_rows, const ExpertWeightsView& weights)
    : stream_(stream),
      weights_(weights),
      handle_(stream),
      permuted_(static_cast<std::size_t>(max_rows) * weights.hidden),
      gate_up_(static_cast<std::size_t>(max_rows) * 2 * weights.intermediate),
      dequantized_(weights.format == WeightFormat::bf16
                       ? 0
                       : static_cast<std::size_t>(2) * weights.intermediate * weights.hidden) {}

void LibraryGemm::read_segments(const AlignmentBuffers& alignment) {
  counts_.resize(static_cast<std::size_t>(weights_.num_experts));
  offsets_.resize(counts_.size() + 1);
  check_cuda(cudaMemcpyAsync(counts_.data(), alignment.expert_counts, counts_.size() * sizeof(std::int32_t),
                             cudaMemcpyDeviceToHost, stream_), "read counts");
  check_cuda(cudaMemcpyAsync(offsets_.data(), alignment.expert_offsets, offsets_.size() * sizeof(std::int32_t),
                             cudaMemcpyDeviceToHost, stream_), "read offsets");
  check_cuda(cudaStreamSynchronize(stream_), "read segments");
}

const std::uint16_t* LibraryGemm::bf16_weights(const void* weights, const float* scales, int expert, int rows,
                                               int cols) {
  const long matrix = static_cast<long>(rows) * cols;
  if (weights_.format == WeightFormat::bf16) return static_cast<const std::uint16_t*>(weights) + expert * matrix;
  const long scale_blocks = static_cast<long>(rows / 128) * (cols / 128);
  launch_dequantize_fp8(static_cast<const std::uint8_t*>(weights) + expert * matrix, scales + expert * scale_blocks, rows,
                        cols, dequantized_.data(), stream_);
  return dequantized_.data();
}

void LibraryGemm::gate_up(const std::uint16_t* hidden_states, int top_k, const std::int32_t* sorted_entries, int rows,
                          std::uint16_t* activation) {
  const int hidden = weights_.hidden, width = 2 * weights_.intermediate;
  launch_permute_rows(hidden_states, top_k, sorted_entries, rows, hidden, permuted_.data(), stream_);
  for (int expert = 0; expert < weights_.num_experts; ++expert) {
    const int count = counts_[static_cast<std::size_t>(expert)];
    if (count == 0) continue;
    const long first = offsets_[static_cast<std::size_t>(expert)];
    const std::uint16_t* w13 = bf16_weights(weights_.w13, weights_.w13_scales, expert, width, hidden);
    gemm_rows_by_weight(handle_.get(), permuted_.data() + first * hidden, w13, gate_up_.data() + first * width, count,
                        width, hidden);
  }
  launch_silu_and_mul(gate_up_.data(), sorted_entries, rows, weights_.intermediate, activation, stream_);
}

void LibraryGemm::down(const std::uint16_t* activation, std::uint16_t* expert_rows) {
  const int hidden = weights_.hidden, intermediate = weights_.intermediate;
  for (int expert = 0; expert < weights_.num_experts; ++expert) {
    const int count = counts_[static_cast<std::size_t>(expert)];
    if (count == 0) continue;
    const long first = offsets_[static_cast<std::size_t>(expert)];
    const std::uint16_t* w2 = bf16_weights(weights_.w2, weights_.w2_scales, expert, hidden, intermediate);
    gemm_rows_by_weight(handle_.get(), activation + first * intermediate, w2, expert_rows + first * hidden, count,
                        hidden, intermediate);
  }
}

}  // namespace moeplan::gpu
