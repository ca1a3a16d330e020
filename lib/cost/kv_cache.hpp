#pragma once
// KV-cache bytes one rank stores per token, from the attention shape and the layout.
#include <cstdint>

#include "spec/dtype.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"

namespace moeplan {

struct KvCacheShape {
  std::uint64_t bytes_per_token = 0;     // full-attention layers: grows with every token
  std::uint64_t bytes_per_sequence = 0;  // sliding-window layers: bounded by the window
  std::int64_t kv_heads_per_rank = 0;    // GQA only
};

// [moeplan-model-arithmetic]: MLA caches (kv_lora_rank + qk_rope_head_dim) per layer, replicated across
// attention TP; GQA caches 2 * kv_heads * head_dim, split by TP down to one head and replicated beyond.
KvCacheShape kv_cache_per_rank(const Model& model, const Layout& layout, DType kv_dtype, std::int64_t context_length);

}  // namespace moeplan
