#include "cost/kv_cache.hpp"

#include <algorithm>

namespace moeplan {

KvCacheShape kv_cache_per_rank(const Model& model, const Layout& layout, DType kv_dtype, std::int64_t context_length) {
  const Attention& attention = model.attention;
  const double element = element_bytes(kv_dtype);
  KvCacheShape shape;
  if (attention.kind == AttentionKind::mla) {
    // [doc-003], [moeplan-model-arithmetic]: one compressed latent per token and layer, the same on every TP rank.
    const auto per_layer = static_cast<std::uint64_t>((attention.kv_lora_rank + attention.qk_rope_head_dim) * element);
    shape.bytes_per_token = per_layer * static_cast<std::uint64_t>(model.num_layers);
    return shape;
  }
  shape.kv_heads_per_rank = std::max<std::int64_t>(1, attention.num_kv_heads / layout.tp);
  const auto per_layer = static_cast<std::uint64_t>(2.0 * static_cast<double>(shape.kv_heads_per_rank) *
                                                    static_cast<double>(attention.head_dim) * element);
  const std::int64_t full_layers = model.num_layers - attention.sliding_layers;
  shape.bytes_per_token = per_layer * static_cast<std::uint64_t>(full_layers);
  // Sliding-window layers keep at most `window` tokens of each sequence.
  const std::int64_t window_tokens = std::min(attention.sliding_window, context_length);
  shape.bytes_per_sequence =
      per_layer * static_cast<std::uint64_t>(attention.sliding_layers) * static_cast<std::uint64_t>(window_tokens);
  return shape;
}

}  // namespace moeplan
