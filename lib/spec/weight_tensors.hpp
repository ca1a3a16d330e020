#pragma once
// Every weight tensor of a model, once: its shape, storage format, which layers carry it and how a
// layout splits it. Parameter totals and memory per rank both read this list, so a shape is written once.
#include <cstdint>
#include <string>
#include <vector>

#include "spec/model.hpp"

namespace moeplan {

enum class Component {
  attention_qkv,
  attention_o,
  dense_ffn,
  routed_experts,
  shared_experts,
  router,
  embedding,
  lm_head,
  norms
};

std::string component_name(Component component);
inline constexpr Component kAllComponents[] = {
    Component::attention_qkv,  Component::attention_o,    Component::dense_ffn,
    Component::routed_experts, Component::shared_experts, Component::router,
    Component::embedding,      Component::lm_head,        Component::norms};

// every_layer: norms around each layer; attention_layers / linear_attention_layers: the token mixer of a
// softmax-attention or a linear-attention layer; dense_layers / moe_layers: the FFN of a dense or a MoE layer.
enum class LayerScope { every_layer, attention_layers, linear_attention_layers, dense_layers, moe_layers, once };

// Which layout degree divides the tensor, and along which of its [out, in] dimensions.
enum class Split {
  replicated,
  query_heads,  // attention TP x QKV-TP, output rows (Q, MLA q_b/kv_b, sinks)
  kv_heads,     // as query_heads, but never below one KV head per rank (GQA K and V)
  o_input,      // attention TP x OTP, input columns (the row-split O matrix of [doc-004])
  dense_rows,   // dense-FFN TP over the intermediate size: w13 output rows
  dense_cols,   // dense-FFN TP over the intermediate size: w2 input columns
  expert_rows,  // expert TP over the intermediate size: w13 output rows
  expert_cols,  // expert TP over the intermediate size: w2 input columns
  vocab,        // LM head / embedding TP, vocabulary rows
};

struct WeightTensor {
  std::string name;
  Component component;
  LayerScope scope;
  std::int64_t rows;  // output features
  std::int64_t cols;  // input features
  Split split;
  DType dtype;
  std::int64_t min_local_rows = 1;  // kv_heads: one head's rows
};

std::vector<WeightTensor> weight_tensors(const Model& model);

// Layers that carry a tensor of this scope.
std::int64_t scope_layers(const Model& model, LayerScope scope);

}  // namespace moeplan
