#pragma once
// The architecture facts moeplan needs about a model: the shapes every cost is computed from.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spec/dtype.hpp"

namespace moeplan {

enum class AttentionKind { mla, gqa };
enum class Scoring { softmax, sigmoid };

// DeepSeek sparse attention (DSA) [deepseek-v3.2-config]: a lightning indexer scores every cached token with
// `heads` small heads of `head_dim`, and the attention reads only the `topk` best. The indexer caches one key
// per token and layer, in `key_dtype` (FP8 with one FP32 scale per 128 elements in DeepSeek's kernels).
struct SparseIndexer {
  std::int64_t heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t topk = 0;
  DType key_dtype = DType::fp8_e4m3;

  bool enabled() const { return heads > 0; }
  // Bytes of one token's indexer key in one layer, scales included.
  std::uint64_t key_bytes() const;
};

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
  bool sinks = false;                 // one learned sink logit per head (gpt-oss)
  std::int64_t sliding_window = 0;    // tokens; 0 = no sliding-window layers
  std::int64_t sliding_layers = 0;    // layers that attend only within the window
  bool qk_norm_across_heads = false;  // one RMSNorm over all heads' q (and k), not per head (MiniMax-M2)
  bool output_gate = false;           // q_proj also emits a sigmoid gate on the output (Qwen3-Next)
  SparseIndexer indexer;              // DeepSeek sparse attention; heads = 0 when dense

  // Width of the O projection's input, h1 in the [h1, h2] notation of [doc-004].
  std::int64_t o_input_width() const;
  // Width of the query projection's output.
  std::int64_t query_width() const;
};

// Gated DeltaNet linear attention [qwen3-next-config]: a fixed-size recurrent state per sequence instead of a
// KV cache growing with context. The state is one [key_head_dim x value_head_dim] matrix per value head (the
// ssm state) and the last conv_kernel - 1 inputs of the short convolution over q, k and v (the conv state).
struct LinearAttention {
  std::int64_t layers = 0;  // layers whose token mixer is linear attention; the rest use `attention`
  std::int64_t key_heads = 0;
  std::int64_t value_heads = 0;
  std::int64_t key_head_dim = 0;
  std::int64_t value_head_dim = 0;
  std::int64_t conv_kernel = 0;
  DType state_dtype = DType::bf16;  // ssm state (mamba_ssm_dtype); the conv state is in bf16

  std::int64_t key_width() const { return key_heads * key_head_dim; }
  std::int64_t value_width() const { return value_heads * value_head_dim; }
  // Channels of the short convolution: q, k and v concatenated.
  std::int64_t conv_channels() const { return 2 * key_width() + value_width(); }
  // Elements of one sequence's ssm state in one layer: value heads x key dim x value dim.
  std::int64_t state_elements() const { return value_heads * key_head_dim * value_head_dim; }
  // Elements of one sequence's conv state in one layer: conv channels x (kernel - 1).
  std::int64_t conv_state_elements() const { return conv_channels() * (conv_kernel - 1); }
};

struct Moe {
  std::int64_t num_experts = 0;  // 0: a dense model, every layer a dense FFN
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
  bool expert_bias = false;         // gpt-oss experts carry biases
  bool shared_expert_gate = false;  // sigmoid(Linear(h, 1)) scales the shared expert (Qwen3-Next)
  std::int64_t layer_step = 1;      // past the dense prefix, every layer_step-th layer is MoE (Llama-4: 2)
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
  std::int64_t dense_layers = 0;  // the first k layers use a dense FFN (all of them in a dense model)
  std::int64_t vocab_size = 0;
  std::int64_t dense_intermediate_size = 0;
  std::int64_t mtp_layers = 0;  // multi-token-prediction modules shipped beside the model
  bool tie_embeddings = false;
  Attention attention;
  LinearAttention linear_attention;
  Moe moe;
  WeightFormats weights;
  DType kv_cache_dtype = DType::bf16;
  std::optional<Published> published;

  bool has_moe() const { return moe.num_experts > 0; }
  // MoE layers among the first `layers`: past the dense prefix, every moe.layer_step-th (the last of each step).
  std::int64_t moe_layers_before(std::int64_t layers) const {
    return has_moe() && layers > dense_layers ? (layers - dense_layers) / moe.layer_step : 0;
  }
  std::int64_t moe_layers() const { return has_moe() ? (num_layers - dense_layers) / moe.layer_step : 0; }
  // MoE layers among `count` layers from `first` (a pipeline stage's).
  std::int64_t moe_layers_in(std::int64_t first, std::int64_t count) const {
    return moe_layers_before(first + count) - moe_layers_before(first);
  }
  // Linear-attention layers among `count` layers from `first`, by their share of the model (exact for the whole).
  std::int64_t linear_attention_layers_in(std::int64_t /*first*/, std::int64_t count) const {
    return count * linear_attention.layers / num_layers;
  }
  // Layers with a dense FFN: the prefix and, when MoE layers interleave, the layers between them.
  std::int64_t dense_ffn_layers() const { return num_layers - moe_layers(); }
  bool is_moe_layer(std::int64_t layer) const {
    return has_moe() && layer >= dense_layers && (layer - dense_layers + 1) % moe.layer_step == 0;
  }
  // Layers whose token mixer is softmax attention (full, sliding or sparse), not linear attention.
  std::int64_t attention_layers() const { return num_layers - linear_attention.layers; }
};

Model load_model_yaml(const std::filesystem::path& file);

// The files load_model_yaml(file) reads: `file`, then the base its `base:` names (a variant's). A file
// that cannot be read is listed alone; load_model_yaml refuses it.
std::vector<std::filesystem::path> model_yaml_files(const std::filesystem::path& file);

// Whether `id` reads as a Hugging Face repository id: "owner/name", each part 1-96 characters of
// letters, digits, '-', '_' and '.', not starting with '.' or '-'.
bool is_hugging_face_id(const std::string& id);

// Checks the cross-field rules every loader must uphold; throws InputError naming model.file.
void validate_model(const Model& model);

// Throws InputError naming model.file when the model has no experts, for what only a MoE model has
// (`purpose`: "expert placement", ...).
void require_moe(const Model& model, const std::string& purpose);

}  // namespace moeplan
