#include "gpu/moe_layer.hpp"

#include <algorithm>
#include <stdexcept>

#include "gpu/combine_kernel.hpp"
#include "gpu/streaming_gemm.hpp"
#include "moe_reference/alignment.hpp"

namespace moeplan::gpu {

MoeLayer::MoeLayer(const MoeLayerConfig& config, int max_tokens, const ExpertWeightsView& weights, cudaStream_t stream)
    : config_(config),
      weights_(weights),
      stream_(stream),
      max_tokens_(max_tokens),
      max_rows_(
          moe_reference::max_aligned_blocks(max_tokens * config.columns, weights.num_experts, kStreamingBlockRows) *
          kStreamingBlockRows),
      expert_ids_(static_cast<std::size_t>(max_tokens) * config.columns),
      global_to_local_(std::span<const std::int32_t>(config.global_to_local)),
      router_weights_(expert_ids_.size()),
      expert_counts_(static_cast<std::size_t>(weights.num_experts)),
      expert_offsets_(static_cast<std::size_t>(weights.num_experts) + 1),
      sorted_entries_(static_cast<std::size_t>(max_rows_)),
      block_experts_(static_cast<std::size_t>(max_rows_ / kStreamingBlockRows)),
      entry_positions_(expert_ids_.size()),
      running_blocks_(block_experts_.size()),
      running_count_(1),
      activation_(static_cast<std::size_t>(max_rows_) * weights.intermediate),
      expert_rows_(static_cast<std::size_t>(max_rows_) * weights.hidden),
      arrivals_(static_cast<std::size_t>(streaming_workspace_slots())),
      partial_sums_(arrivals_.size() * kStreamingSlotValues) {
  if (config.columns <= 0 || weights.num_experts <= 0 || max_tokens <= 0) {
    throw std::invalid_argument("MoeLayer: empty configuration");
  }
  // The streaming GEMM stages at most one row per token in a slot's block: no two experts share a slot.
  std::vector<int> experts_per_slot(static_cast<std::size_t>(weights.num_experts));
  for (std::int32_t slot : config.global_to_local) {
    if (slot >= weights.num_experts || (slot >= 0 && ++experts_per_slot[static_cast<std::size_t>(slot)] > 1)) {
      throw std::invalid_argument("MoeLayer: global_to_local maps past the slots or two experts to one slot");
    }
  }
  arrivals_.fill_bytes(0, stream);
  partial_sums_.fill_bytes(0, stream);
  if (weights.format == WeightFormat::fp8_block_scaled) {
    const std::size_t groups_per_token = static_cast<std::size_t>(weights.hidden) / moe_reference::kScaleBlock;
    const std::size_t groups_per_row = static_cast<std::size_t>(weights.intermediate) / moe_reference::kScaleBlock;
    hidden_codes_ = DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(max_tokens) * weights.hidden);
    hidden_scales_ = DeviceBuffer<float>(static_cast<std::size_t>(max_tokens) * groups_per_token);
    activation_codes_ = DeviceBuffer<std::uint8_t>(activation_.size());
    activation_scales_ = DeviceBuffer<float>(static_cast<std::size_t>(max_rows_) * groups_per_row);
  }
}

bool MoeLayer::quantizes_activations() const { return weights_.format == WeightFormat::fp8_block_scaled; }

GemmRows MoeLayer::token_groups(const std::uint16_t* rows, DeviceBuffer<std::uint8_t>& codes,
                                DeviceBuffer<float>& scales) {
  if (!quantizes_activations()) return {rows, nullptr};
  return {codes.data(), scales.data()};
}

void MoeLayer::quantize_hidden(const std::uint16_t* hidden_states, int tokens) {
  require_tokens(tokens);
  if (!quantizes_activations()) return;
  launch_token_group_quantize(hidden_states, tokens, nullptr, weights_.hidden, nullptr, hidden_codes_.data(),
                              hidden_scales_.data(), stream_);
}

void MoeLayer::quantize_activation(int tokens) {
  require_tokens(tokens);
  if (!quantizes_activations()) return;
  // Only the aligned rows in use (align's count on the device), not the launch's bound on them.
  launch_token_group_quantize(activation_.data(), max_blocks(tokens) * kStreamingBlockRows,
                              expert_offsets_.data() + weights_.num_experts, weights_.intermediate,
                              sorted_entries_.data(), activation_codes_.data(), activation_scales_.data(), stream_);
}

GemmPath MoeLayer::choose_path(int tokens) const {
  const double rows_per_slot = static_cast<double>(tokens) * config_.columns / weights_.num_experts;
  const double expert_weight_bytes =
      3.0 * weights_.intermediate * weights_.hidden * weights_.element_bytes();  // w13 [2I, H] and w2 [H, I]
  const int most_rows =
      weights_.format == WeightFormat::fp8_block_scaled ? kStreamingMostRowsE4m3 : kStreamingMostRowsBf16;
  return rows_per_slot <= most_rows && rows_per_slot * expert_weight_bytes <= kStreamingMaxRowWeightBytes
             ? GemmPath::streaming
             : GemmPath::library;
}

int MoeLayer::max_blocks(int tokens) const {
  return moe_reference::max_aligned_blocks(tokens * config_.columns, weights_.num_experts, kStreamingBlockRows);
}

int MoeLayer::block_rows(int tokens) const { return std::clamp(tokens, 1, kStreamingBlockRows); }

StreamingBlocks MoeLayer::streaming_blocks(int tokens) const {
  return {sorted_entries_.data(), block_experts_.data(), expert_offsets_.data() + weights_.num_experts,
          running_blocks_.data(), running_count_.data(), max_blocks(tokens),
          block_rows(tokens)};
}

StreamingWorkspace MoeLayer::workspace() const {
  return {partial_sums_.data(), arrivals_.data(), static_cast<int>(arrivals_.size())};
}

AlignmentBuffers MoeLayer::alignment() const {
  return {expert_counts_.data(),   expert_offsets_.data(), sorted_entries_.data(), block_experts_.data(),
          entry_positions_.data(), running_blocks_.data(), running_count_.data()};
}

void MoeLayer::require_tokens(int tokens) const {
  if (tokens < 1 || tokens > max_tokens_) throw std::invalid_argument("MoeLayer: tokens outside 1 .. max_tokens");
}

void MoeLayer::align(int tokens) {
  require_tokens(tokens);
  launch_align(expert_ids_.data(), tokens * config_.columns, global_to_local_.data(), weights_.num_experts,
               kStreamingBlockRows, kRidingRows, max_blocks(tokens), alignment(), stream_);
}

void MoeLayer::gate_up(const std::uint16_t* hidden_states, int tokens, GemmPath path) {
  require_tokens(tokens);
  const GemmRows input = token_groups(hidden_states, hidden_codes_, hidden_scales_);
  if (path == GemmPath::streaming) {
    launch_streaming_gate_up(input, config_.columns, streaming_blocks(tokens), weights_, workspace(),
                             activation_.data(), stream_);
    return;
  }
  if (!library_) library_ = std::make_unique<LibraryGemm>(stream_, max_rows_, kStreamingBlockRows, weights_);
  library_->read_segments(alignment());
  library_->gate_up(input, config_.columns, max_blocks(tokens) * kStreamingBlockRows, activation_.data());
}

void MoeLayer::down(int tokens, GemmPath path) {
  require_tokens(tokens);
  const int rows = max_blocks(tokens) * kStreamingBlockRows;
  const GemmRows input = token_groups(activation_.data(), activation_codes_, activation_scales_);
  if (path == GemmPath::streaming) {
    launch_streaming_down(input, streaming_blocks(tokens), weights_, workspace(), expert_rows_.data(), stream_);
    return;
  }
  if (!library_) throw std::logic_error("MoeLayer::down: the library path runs gate_up first");
  library_->down(input, rows, expert_rows_.data());
}

void MoeLayer::combine(int tokens, std::uint16_t* output) {
  launch_combine(expert_rows_.data(), entry_positions_.data(), router_weights_.data(), tokens, config_.columns,
                 weights_.hidden, static_cast<float>(config_.routed_scaling_factor), output, stream_);
}

void MoeLayer::forward(const std::uint16_t* hidden_states, int tokens, std::uint16_t* output) {
  const GemmPath path = choose_path(tokens);
  align(tokens);
  quantize_hidden(hidden_states, tokens);
  gate_up(hidden_states, tokens, path);
  quantize_activation(tokens);
  down(tokens, path);
  combine(tokens, output);
}

}  // namespace moeplan::gpu
