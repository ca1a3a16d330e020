#include "cost/kv_cache.hpp"

#include <algorithm>

namespace moeplan {

namespace {

// Linear-attention state one rank keeps per sequence: heads split over attention TP, at least one per rank.
std::uint64_t linear_state_per_rank(const Model& model, const Layout& layout) {
  const LinearAttention& linear = model.linear_attention;
  if (linear.layers == 0) return 0;
  const std::int64_t heads = std::max<std::int64_t>(1, linear.value_heads / layout.tp);
  return linear_state_bytes(model) * static_cast<std::uint64_t>(heads) /
         static_cast<std::uint64_t>(linear.value_heads) * static_cast<std::uint64_t>(linear.layers);
}

// One token's MLA latent in one layer. Sparse MLA's FP8 cache keeps the latent in FP8 with one FP32 scale per
// 128 values and the RoPE part in bf16, 656 bytes for DeepSeek-V3.2 (512 + 16 + 128) [flashinfer-issue-2426];
// otherwise latent and RoPE part both in the cache's dtype (576 bytes in FP8).
std::uint64_t mla_latent_bytes(const Attention& attention, DType kv_dtype) {
  const auto latent = static_cast<std::uint64_t>(attention.kv_lora_rank);
  const auto rope = static_cast<std::uint64_t>(attention.qk_rope_head_dim);
  if (attention.indexer.enabled() && kv_dtype == DType::fp8_e4m3) {
    return latent + 4 * static_cast<std::uint64_t>(divide_rounding_up(attention.kv_lora_rank, 128)) + 2 * rope;
  }
  return static_cast<std::uint64_t>(static_cast<double>(latent + rope) * element_bytes(kv_dtype));
}

}  // namespace

double KvCacheShape::sequence_token_equivalent() const {
  if (bytes_per_token == 0) return 0.0;
  return static_cast<double>(bytes_per_sequence) / static_cast<double>(bytes_per_token);
}

std::uint64_t linear_state_bytes(const Model& model) {
  const LinearAttention& linear = model.linear_attention;
  if (linear.layers == 0) return 0;
  const auto ssm =
      static_cast<std::uint64_t>(static_cast<double>(linear.state_elements()) * element_bytes(linear.state_dtype));
  const auto conv =
      static_cast<std::uint64_t>(static_cast<double>(linear.conv_state_elements()) * element_bytes(DType::bf16));
  return ssm + conv;
}

KvCacheShape kv_cache_per_rank(const Model& model, const Layout& layout, DType kv_dtype, std::int64_t context_length) {
  const Attention& attention = model.attention;
  const double element = element_bytes(kv_dtype);
  const auto attention_layers = static_cast<std::uint64_t>(model.attention_layers());
  KvCacheShape shape;
  shape.linear_state_bytes = linear_state_per_rank(model, layout);
  shape.bytes_per_sequence = shape.linear_state_bytes;
  if (attention.kind == AttentionKind::mla) {
    // [doc-003], [moeplan-model-arithmetic]: one compressed latent per token and layer, the same on every TP rank;
    // sparse attention adds the indexer's key [deepseek-v3.2-config], replicated with it.
    const auto per_layer =
        mla_latent_bytes(attention, kv_dtype) + (attention.indexer.enabled() ? attention.indexer.key_bytes() : 0);
    shape.bytes_per_token = per_layer * attention_layers;
    return shape;
  }
  shape.kv_heads_per_rank = std::max<std::int64_t>(1, attention.num_kv_heads / layout.tp);
  const auto per_layer = static_cast<std::uint64_t>(2.0 * static_cast<double>(shape.kv_heads_per_rank) *
                                                    static_cast<double>(attention.head_dim) * element);
  const std::uint64_t full_layers = attention_layers - static_cast<std::uint64_t>(attention.sliding_layers);
  shape.bytes_per_token = per_layer * full_layers;
  // Sliding-window layers keep at most `window` tokens of each sequence.
  const std::int64_t window_tokens = std::min(attention.sliding_window, context_length);
  shape.bytes_per_sequence +=
      per_layer * static_cast<std::uint64_t>(attention.sliding_layers) * static_cast<std::uint64_t>(window_tokens);
  return shape;
}

double prompt_kv_transfer_seconds(const Model& model, const Layout& prefill, const Hardware& hardware, DType kv_dtype,
                                  std::int64_t prompt_tokens) {
  const KvCacheShape shape = kv_cache_per_rank(model, prefill, kv_dtype, prompt_tokens);
  const double bytes = static_cast<double>(shape.bytes_per_token) * static_cast<double>(prompt_tokens) +
                       static_cast<double>(shape.bytes_per_sequence);
  return bytes / hardware.inter_node_bandwidth + hardware.inter_node_latency;
}

}  // namespace moeplan
