#pragma once
// KV-cache bytes one rank stores per token, from the attention shape and the layout.
#include <cstdint>

#include "spec/dtype.hpp"
#include "spec/hardware.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"

namespace moeplan {

struct KvCacheShape {
  std::uint64_t bytes_per_token = 0;  // full-attention layers (and the sparse indexer's keys): grows with every token
  std::uint64_t bytes_per_sequence = 0;  // sliding-window layers (bounded by the window) and linear-attention state
  std::uint64_t linear_state_bytes = 0;  // of bytes_per_sequence, the linear-attention layers' recurrent state

  // The fixed per-sequence bytes as tokens of the growing cache: what one sequence costs beyond its tokens.
  double sequence_token_equivalent() const;
  std::int64_t kv_heads_per_rank = 0;  // GQA only
};

// [moeplan-model-arithmetic]: MLA caches (kv_lora_rank + qk_rope_head_dim) per layer, replicated across
// attention TP; GQA caches 2 * kv_heads * head_dim, split by TP down to one head and replicated beyond.
// One sequence's recurrent state in one linear-attention layer, all heads: the ssm state (value heads x key dim x
// value dim) in its state dtype and the conv state (conv channels x (kernel - 1)) in bf16; 0 without such layers.
std::uint64_t linear_state_bytes(const Model& model);

KvCacheShape kv_cache_per_rank(const Model& model, const Layout& layout, DType kv_dtype, std::int64_t context_length);

// Seconds one prompt of `prompt_tokens` takes to cross from a prefill rank of `prefill` to the decode worker in
// disaggregated serving: the rank's KV bytes of the prompt (kv_cache_per_rank) over its inter-node link, plus the
// link's latency; every rank of the prefill worker sends its share at once.
double prompt_kv_transfer_seconds(const Model& model, const Layout& prefill, const Hardware& hardware, DType kv_dtype,
                                  std::int64_t prompt_tokens);

}  // namespace moeplan
