#include "gpu/library_gemm.hpp"

#include <algorithm>

#include "gpu/elementwise_kernels.hpp"
#include "gpu/token_group_gather.hpp"
#include "moe_reference/fp8_format.hpp"

namespace moeplan::gpu {
namespace {

// [experts][n / 128][k / 128] block scales copied to rows of block_scale_stride(k).
DeviceBuffer<float> restrided_scales(const float* scales, int experts, int n, int k, cudaStream_t stream) {
  const int stride = block_scale_stride(k), row_blocks = n / moe_reference::kScaleBlock,
            blocks = k / moe_reference::kScaleBlock;
  DeviceBuffer<float> restrided(static_cast<std::size_t>(experts) * row_blocks * stride);
  restrided.fill_bytes(0, stream);
  check_cuda(cudaMemcpy2DAsync(restrided.data(), stride * sizeof(float), scales, blocks * sizeof(float),
                               blocks * sizeof(float), static_cast<std::size_t>(experts) * row_blocks,
                               cudaMemcpyDeviceToDevice, stream),
             "restride block scales");
  return restrided;
}

}  // namespace

LibraryGemm::LibraryGemm(cudaStream_t stream, int max_rows, int block_rows, const ExpertWeightsView& weights)
    : stream_(stream),
      block_rows_(block_rows),
      weights_(weights),
      lanes_(kLibraryLanes),
      gate_up_(static_cast<std::size_t>(max_rows) * 2 * weights.intermediate) {
  const auto rows = static_cast<std::size_t>(max_rows);
  if (!block_scaled()) {
    for (int lane = 0; lane < lanes_.width(); ++lane) {
      handles_.push_back(std::make_unique<CublasHandle>(lanes_.stream(lane)));
    }
    permuted_ = DeviceBuffer<std::uint16_t>(rows * weights.hidden);
    return;
  }
  for (int lane = 0; lane < lanes_.width(); ++lane) block_scaled_gemms_.push_back(std::make_unique<BlockScaledGemm>());
  permuted_codes_ = DeviceBuffer<std::uint8_t>(rows * weights.hidden);
  expert_major_scales_ =
      DeviceBuffer<float>(rows * std::max(weights.hidden, weights.intermediate) / moe_reference::kScaleBlock);
  w13_scales_ =
      restrided_scales(weights.w13_scales, weights.num_experts, 2 * weights.intermediate, weights.hidden, stream);
  w2_scales_ = restrided_scales(weights.w2_scales, weights.num_experts, weights.hidden, weights.intermediate, stream);
}

void LibraryGemm::read_segments(const AlignmentBuffers& alignment) {
  alignment_ = alignment;
  counts_.resize(static_cast<std::size_t>(weights_.num_experts));
  offsets_.resize(counts_.size() + 1);
  check_cuda(cudaMemcpyAsync(counts_.data(), alignment.expert_counts, counts_.size() * sizeof(std::int32_t),
                             cudaMemcpyDeviceToHost, stream_),
             "read counts");
  check_cuda(cudaMemcpyAsync(offsets_.data(), alignment.expert_offsets, offsets_.size() * sizeof(std::int32_t),
                             cudaMemcpyDeviceToHost, stream_),
             "read offsets");
  check_cuda(cudaStreamSynchronize(stream_), "read segments");
}

void LibraryGemm::per_expert(const void* input, const float* expert_major_scales, const void* weights,
                             const DeviceBuffer<float>& weight_scales, std::uint16_t* output, int n, int k) {
  const long matrix = static_cast<long>(n) * k;
  const long scales_per_expert = static_cast<long>(n / moe_reference::kScaleBlock) * block_scale_stride(k);
  lanes_.fork(stream_);
  int lane = 0;
  for (int expert = 0; expert < weights_.num_experts; ++expert) {
    const int count = counts_[static_cast<std::size_t>(expert)];
    if (count == 0) continue;
    const long first = offsets_[static_cast<std::size_t>(expert)];
    const std::size_t at = static_cast<std::size_t>(lane);
    lane = (lane + 1) % lanes_.width();
    if (!block_scaled()) {
      gemm_rows_by_weight(handles_[at]->get(), static_cast<const std::uint16_t*>(input) + first * k,
                          static_cast<const std::uint16_t*>(weights) + expert * matrix, output + first * n, count, n,
                          k);
      continue;
    }
    const BlockScaledRows rows{static_cast<const std::uint8_t*>(input) + first * k,
                               expert_major_scales + first * (k / moe_reference::kScaleBlock)};
    const BlockScaledWeight weight{static_cast<const std::uint8_t*>(weights) + expert * matrix,
                                   weight_scales.data() + expert * scales_per_expert};
    block_scaled_gemms_[at]->multiply(rows, weight, output + first * n, aligned_scale_run(count), n, k,
                                      lanes_.stream(static_cast<int>(at)));
  }
  lanes_.join(stream_);
}

void LibraryGemm::gate_up(GemmRows hidden_states, int top_k, int rows, std::uint16_t* activation) {
  const int hidden = weights_.hidden, width = 2 * weights_.intermediate;
  if (block_scaled()) {
    launch_gather_token_groups(hidden_states, hidden, top_k, alignment_, block_rows_, rows, permuted_codes_.data(),
                               expert_major_scales_.data(), stream_);
    per_expert(permuted_codes_.data(), expert_major_scales_.data(), weights_.w13, w13_scales_, gate_up_.data(), width,
               hidden);
  } else {
    launch_permute_rows(static_cast<const std::uint16_t*>(hidden_states.values), top_k, alignment_.sorted_entries, rows,
                        hidden, permuted_.data(), stream_);
    per_expert(permuted_.data(), nullptr, weights_.w13, w13_scales_, gate_up_.data(), width, hidden);
  }
  launch_silu_and_mul(gate_up_.data(), alignment_.sorted_entries, rows, weights_.intermediate, activation, stream_);
}

void LibraryGemm::down(GemmRows activation, int rows, std::uint16_t* expert_rows) {
  const int hidden = weights_.hidden, intermediate = weights_.intermediate;
  if (block_scaled()) {
    launch_gather_token_groups(activation, intermediate, 0, alignment_, block_rows_, rows, nullptr,
                               expert_major_scales_.data(), stream_);
  }
  per_expert(activation.values, expert_major_scales_.data(), weights_.w2, w2_scales_, expert_rows, hidden,
             intermediate);
}

}  // namespace moeplan::gpu
