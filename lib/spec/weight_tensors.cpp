#include "spec/weight_tensors.hpp"

namespace moeplan {

namespace {

void add_indexer(const Model& model, std::vector<WeightTensor>& tensors);

void add_attention(const Model& model, std::vector<WeightTensor>& tensors) {
  const Attention& a = model.attention;
  const std::int64_t h = model.hidden_size;
  const DType dtype = model.weights.attention;
  const DType small = model.weights.norms;
  const auto add = [&](std::string name, Component component, std::int64_t rows, std::int64_t cols, Split split,
                       DType type, std::int64_t min_rows = 1) {
    tensors.push_back({std::move(name), component, LayerScope::attention_layers, rows, cols, split, type, min_rows});
  };
  if (a.kind == AttentionKind::mla) {
    // [moeplan-model-arithmetic]: h*q_lora + q_lora*H*(nope+rope) + h*(kv_lora+rope) + kv_lora*H*(nope+v) + H*v*h.
    if (a.q_lora_rank > 0) {
      add("q_a_proj", Component::attention_qkv, a.q_lora_rank, h, Split::replicated, dtype);
      add("q_a_layernorm", Component::norms, a.q_lora_rank, 1, Split::replicated, small);
      add("q_b_proj", Component::attention_qkv, a.query_width(), a.q_lora_rank, Split::query_heads, dtype);
    } else {
      add("q_proj", Component::attention_qkv, a.query_width(), h, Split::query_heads, dtype);
    }
    add("kv_a_proj_with_mqa", Component::attention_qkv, a.kv_lora_rank + a.qk_rope_head_dim, h, Split::replicated,
        dtype);
    add("kv_a_layernorm", Component::norms, a.kv_lora_rank, 1, Split::replicated, small);
    add("kv_b_proj", Component::attention_qkv, a.num_heads * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank,
        Split::query_heads, dtype);
    if (a.indexer.enabled()) add_indexer(model, tensors);
  } else {
    // [moeplan-model-arithmetic]: h*H*d + 2*h*KV*d + H*d*h (+ biases, qk-norm, sinks).
    const std::int64_t kv_width = a.num_kv_heads * a.head_dim;
    // A gated output doubles q_proj: each head emits its query and its output gate [qwen3-next-config].
    const std::int64_t query_rows = a.output_gate ? 2 * a.query_width() : a.query_width();
    add("q_proj", Component::attention_qkv, query_rows, h, Split::query_heads, dtype);
    add("k_proj", Component::attention_qkv, kv_width, h, Split::kv_heads, dtype, a.head_dim);
    add("v_proj", Component::attention_qkv, kv_width, h, Split::kv_heads, dtype, a.head_dim);
    if (a.qkv_bias) {
      add("q_bias", Component::attention_qkv, a.query_width(), 1, Split::query_heads, small);
      add("k_bias", Component::attention_qkv, kv_width, 1, Split::kv_heads, small, a.head_dim);
      add("v_bias", Component::attention_qkv, kv_width, 1, Split::kv_heads, small, a.head_dim);
    }
    // Per head, one weight of head_dim each for q and k; across heads (MiniMax-M2), one over all q and all k.
    const std::int64_t norm_width = a.qk_norm_across_heads ? a.query_width() + kv_width : 2 * a.head_dim;
    if (a.qk_norm) add("qk_norm", Component::norms, norm_width, 1, Split::replicated, small);
  }
  if (a.sinks) add("sinks", Component::attention_qkv, a.num_heads, 1, Split::query_heads, small);
  add("o_proj", Component::attention_o, h, a.o_input_width(), Split::o_input, dtype);
  if (a.o_bias) add("o_bias", Component::attention_o, h, 1, Split::replicated, small);
  tensors.push_back({"input_layernorm", Component::norms, LayerScope::every_layer, h, 1, Split::replicated, small});
  tensors.push_back(
      {"post_attention_layernorm", Component::norms, LayerScope::every_layer, h, 1, Split::replicated, small});
}

// Gated DeltaNet [qwen3-next-config]: q, k, v, the output gate z and the per-head beta and decay inputs projected
// from the hidden state; a depthwise short convolution over q, k and v; per-head dt bias and A; a gated RMSNorm
// over each value head; the output projection. Heads split across attention TP like query heads.
void add_linear_attention(const Model& model, std::vector<WeightTensor>& tensors) {
  const LinearAttention& linear = model.linear_attention;
  const std::int64_t h = model.hidden_size;
  const DType dtype = model.weights.attention;
  const DType small = model.weights.norms;
  const auto add = [&](std::string name, Component component, std::int64_t rows, std::int64_t cols, Split split,
                       DType type) {
    tensors.push_back({std::move(name), component, LayerScope::linear_attention_layers, rows, cols, split, type});
  };
  add("linear.in_proj_qkvz", Component::attention_qkv, linear.conv_channels() + linear.value_width(), h,
      Split::query_heads, dtype);
  add("linear.in_proj_ba", Component::attention_qkv, 2 * linear.value_heads, h, Split::query_heads, dtype);
  add("linear.conv1d", Component::attention_qkv, linear.conv_channels() * linear.conv_kernel, 1, Split::query_heads,
      small);
  add("linear.dt_bias_a_log", Component::attention_qkv, 2 * linear.value_heads, 1, Split::query_heads, small);
  add("linear.norm", Component::norms, linear.value_head_dim, 1, Split::replicated, small);
  add("linear.out_proj", Component::attention_o, h, linear.value_width(), Split::o_input, dtype);
}

// DeepSeek sparse attention's lightning indexer [deepseek-v3.2-config]: its queries from the MLA query latent,
// one shared key from the hidden state (LayerNorm'd), and a per-head weight from the hidden state. Engines
// replicate it on every attention-TP rank.
void add_indexer(const Model& model, std::vector<WeightTensor>& tensors) {
  const Attention& a = model.attention;
  const SparseIndexer& indexer = a.indexer;
  const std::int64_t h = model.hidden_size;
  const std::int64_t query_input = a.q_lora_rank > 0 ? a.q_lora_rank : h;
  const DType dtype = model.weights.attention;
  const auto add = [&](std::string name, Component component, std::int64_t rows, std::int64_t cols, DType type) {
    tensors.push_back({std::move(name), component, LayerScope::attention_layers, rows, cols, Split::replicated, type});
  };
  add("indexer.wq_b", Component::attention_qkv, indexer.heads * indexer.head_dim, query_input, dtype);
  add("indexer.wk", Component::attention_qkv, indexer.head_dim, h, dtype);
  add("indexer.k_norm", Component::norms, 2 * indexer.head_dim, 1, model.weights.norms);  // LayerNorm weight and bias
  add("indexer.weights_proj", Component::attention_qkv, indexer.heads, h, dtype);
}

// One SwiGLU expert: w13 = gate and up fused [2I, h], w2 = down [h, I] (the w13/w2 split of [doc-002]).
void add_expert(const Model& model, Component component, std::int64_t intermediate, DType dtype,
                std::vector<WeightTensor>& tensors) {
  const std::int64_t h = model.hidden_size;
  const DType small = model.weights.norms;
  const std::string prefix = component == Component::routed_experts ? "expert." : "shared_expert.";
  tensors.push_back(
      {prefix + "w13", component, LayerScope::moe_layers, 2 * intermediate, h, Split::expert_rows, dtype});
  tensors.push_back({prefix + "w2", component, LayerScope::moe_layers, h, intermediate, Split::expert_cols, dtype});
  if (model.moe.expert_bias) {
    tensors.push_back(
        {prefix + "w13_bias", component, LayerScope::moe_layers, 2 * intermediate, 1, Split::expert_rows, small});
    tensors.push_back({prefix + "w2_bias", component, LayerScope::moe_layers, h, 1, Split::replicated, small});
  }
}

void add_ffn(const Model& model, std::vector<WeightTensor>& tensors) {
  const std::int64_t h = model.hidden_size;
  const Moe& moe = model.moe;
  if (model.dense_ffn_layers() > 0) {
    const std::int64_t inter = model.dense_intermediate_size;
    tensors.push_back({"dense.w13", Component::dense_ffn, LayerScope::dense_layers, 2 * inter, h, Split::dense_rows,
                       model.weights.dense_ffn});
    tensors.push_back({"dense.w2", Component::dense_ffn, LayerScope::dense_layers, h, inter, Split::dense_cols,
                       model.weights.dense_ffn});
  }
  if (!model.has_moe()) return;
  add_expert(model, Component::routed_experts, moe.intermediate_size, model.weights.experts, tensors);
  if (moe.shared_experts > 0) {
    add_expert(model, Component::shared_experts, moe.shared_intermediate_size, model.weights.shared_experts, tensors);
  }
  if (moe.shared_expert_gate) {
    tensors.push_back({"shared_expert_gate", Component::router, LayerScope::moe_layers, 1, h, Split::replicated,
                       model.weights.router});
  }
  tensors.push_back({"router", Component::router, LayerScope::moe_layers, moe.num_experts, h, Split::replicated,
                     model.weights.router});
  if (moe.router_bias || moe.correction_bias) {
    // DeepSeek-V3 keeps e_score_correction_bias in fp32.
    const DType bias_dtype = moe.correction_bias ? DType::fp32 : model.weights.norms;
    tensors.push_back(
        {"router_bias", Component::router, LayerScope::moe_layers, moe.num_experts, 1, Split::replicated, bias_dtype});
  }
}

}  // namespace

std::string component_name(Component component) {
  switch (component) {
    case Component::attention_qkv: return "attention_qkv";
    case Component::attention_o: return "attention_o";
    case Component::dense_ffn: return "dense_ffn";
    case Component::routed_experts: return "routed_experts";
    case Component::shared_experts: return "shared_experts";
    case Component::router: return "router";
    case Component::embedding: return "embedding";
    case Component::lm_head: return "lm_head";
    case Component::norms: return "norms";
  }
  return "unknown";
}

std::vector<WeightTensor> weight_tensors(const Model& model) {
  std::vector<WeightTensor> tensors;
  add_attention(model, tensors);
  if (model.linear_attention.layers > 0) add_linear_attention(model, tensors);
  add_ffn(model, tensors);
  const std::int64_t h = model.hidden_size;
  tensors.push_back({"embed_tokens", Component::embedding, LayerScope::once, model.vocab_size, h, Split::vocab,
                     model.weights.embedding});
  if (!model.tie_embeddings) {
    tensors.push_back(
        {"lm_head", Component::lm_head, LayerScope::once, model.vocab_size, h, Split::vocab, model.weights.lm_head});
  }
  tensors.push_back({"final_norm", Component::norms, LayerScope::once, h, 1, Split::replicated, model.weights.norms});
  return tensors;
}

std::int64_t scope_layers(const Model& model, LayerScope scope) {
  switch (scope) {
    case LayerScope::every_layer: return model.num_layers;
    case LayerScope::attention_layers: return model.attention_layers();
    case LayerScope::linear_attention_layers: return model.linear_attention.layers;
    case LayerScope::dense_layers: return model.dense_ffn_layers();
    case LayerScope::moe_layers: return model.moe_layers();
    case LayerScope::once: return 1;
  }
  return 0;
}

}  // namespace moeplan
