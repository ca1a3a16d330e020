#pragma once
// The architecture facts moeplan needs about a model: the shapes every cost is computed from.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "spec/dtype.hpp"

namespace moeplan {

enum class AttentionKind { mla, gqa };
enum class Scoring { softmax, sigmoid };

struct Attention {
  AttentionKind kind = AttentionKind::gqa;
  std::int64_t num_heads = 0;
  std::int64_t num_kv_heads = 0;  // GQA only; MLA caches one shared latent per token
  std::int64_t head_dim = 0;      // GQA only
  std::int64_t q_lora_rank = 0;   // MLA; 0 = queries projected straight from the hidden state
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  bool qkv_bias = false;
  bool o_bias = false;
  bool qk_norm = false;
  bool sinks = false;               // one learned sink logit per head (gpt-oss)
  std::int64_t sliding_window = 0;  // tokens; 0 = no sliding-window layers
  std::int64_t sliding_layers = 0;  // layers that attend only within the window

  // Width of the O projection's input, h1 in the [h1, h2] notation of [doc-004].
  std::int64_t o_input_width() const;
  // Width of the query projection's output.
  std::int64_t query_width() const;
};

struct Moe {
  std::int64_t num_experts = 0;
  std::int64_t experts_per_token = 0;
  std::int64_t intermediate_size = 0;
  std::int64_t shared_experts = 0;
  std::int64_t shared_intermediate_size = 0;  // per shared expert
  std::int64_t num_groups = 1;
  std::int64_t topk_groups = 1;
  Scoring scoring = Scoring::softmax;
  double routed_scaling_factor = 1.0;
  bool correction_bias = false;  // DeepSeek-V3 e_score_correction_bias: selection only [doc-001]
  bool router_bias = false;
  bool normalize_topk = true;
  bool expert_bias = false;  // gpt-oss experts carry biases
};

struct WeightFormats {
  DType attention = DType::bf16;
  DType dense_ffn = DType::bf16;
  DType experts = DType::bf16;
  DType shared_experts = DType::bf16;
  DType router = DType::bf16;
  DType embedding = DType::bf16;
  DType lm_head = DType::bf16;
  DType norms = DType::bf16;
  BlockShape block;
};

// What the model's publisher says, for the parameter-accounting check.
enum class ActiveCount { embedding_and_head, head_only, neither };

struct Published {
  std::string source;
  double total_params = 0;
  double active_params = 0;
  ActiveCount active_counts = ActiveCount::embedding_and_head;
};

struct Model {
  std::string name;
  std::string hf_id;  // Hugging Face repository id ("owner/name"); empty when unknown
  std::string source;
  std::string file;  // where it was read from, for error messages
  std::int64_t hidden_size = 0;
  std::int64_t num_layers = 0;
  std::int64_t dense_layers = 0;  // the first k layers use a dense FFN
  std::int64_t vocab_size = 0;
  std::int64_t dense_intermediate_size = 0;
  std::int64_t mtp_layers = 0;  // multi-token-prediction modules shipped beside the model
  bool tie_embeddings = false;
  Attention attention;
  Moe moe;
  WeightFormats weights;
  DType kv_cache_dtype = DType::bf16;
  std::optional<Published> published;

  std::int64_t moe_layers() const { return num_layers - dense_layers; }
};

Model load_model_yaml(const std::filesystem::path& file);

// Whether `id` reads as a Hugging Face repository id: "owner/name", each part 1-96 characters of
// letters, digits, '-', '_' and '.', not starting with '.' or '-'.
bool is_hugging_face_id(const std::string& id);

// Checks the cross-field rules every loader must uphold; throws InputError naming model.file.
void validate_model(const Model& model);

}  // namespace moeplan
