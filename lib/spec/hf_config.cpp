#include "spec/hf_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "io/input_file.hpp"
#include "io/json_fields.hpp"
#include "spec/shape_limits.hpp"

namespace moeplan {

namespace {

// Typed reads from the config object (or one nested in it, at `path`); every failure names the file and the key.
class ConfigView {
 public:
  ConfigView(const nlohmann::json& json, std::string file, std::string path = "")
      : json_(json), file_(std::move(file)), path_(std::move(path)) {}

  bool has(const char* key) const { return json_.contains(key) && !json_[key].is_null(); }

  // The integer at `key`, in [minimum, maximum]; the same bounds as the model YAML's reader.
  std::int64_t integer(const char* key, std::int64_t minimum = 1, std::int64_t maximum = kMostModelWidth) const {
    if (!has(key)) throw InputError(file_, key_path(key), "an integer (the key is missing)");
    const nlohmann::json& value = json_[key];
    if (!value.is_number_integer() || value.get<std::int64_t>() < minimum || value.get<std::int64_t>() > maximum) {
      throw InputError(file_, key_path(key),
                       fmt::format("an integer in [{}, {}], got {}", minimum, maximum, echoed(value.dump())));
    }
    return value.get<std::int64_t>();
  }
  // A count (heads, experts, layers): at most kMostModelCount.
  std::int64_t count(const char* key, std::int64_t minimum = 1) const { return integer(key, minimum, kMostModelCount); }
  std::int64_t integer_or(const char* key, std::int64_t fallback, std::int64_t minimum = 1,
                          std::int64_t maximum = kMostModelWidth) const {
    return has(key) ? integer(key, minimum, maximum) : fallback;
  }
  std::int64_t count_or(const char* key, std::int64_t fallback, std::int64_t minimum = 1) const {
    return has(key) ? count(key, minimum) : fallback;
  }
  double number_or(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const nlohmann::json& value = json_[key];
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0) {
      throw InputError(file_, key_path(key), fmt::format("a positive finite number, got {}", echoed(value.dump())));
    }
    return value.get<double>();
  }
  bool flag_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!json_[key].is_boolean())
      throw InputError(file_, key_path(key), "true or false, got " + echoed(json_[key].dump()));
    return json_[key].get<bool>();
  }
  std::string text_or(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!json_[key].is_string()) throw InputError(file_, key_path(key), "a string, got " + echoed(json_[key].dump()));
    return json_[key].get<std::string>();
  }
  const nlohmann::json& raw(const char* key) const { return json_[key]; }
  const std::string& file() const { return file_; }
  std::string key_path(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

  // The object at `key`, read with keys named below it.
  ConfigView object(const char* key) const {
    if (!json_[key].is_object())
      throw InputError(file_, key_path(key), "a JSON object, got " + echoed(json_[key].dump()));
    return ConfigView(json_[key], file_, key_path(key));
  }
  // A list of `count` integers in [1, kMostModelWidth].
  std::vector<std::int64_t> integers(const char* key, std::size_t count) const {
    const nlohmann::json& value = json_[key];
    const std::string expectation =
        fmt::format("a list of {} integers in [1, {}], got {}", count, kMostModelWidth, echoed(value.dump()));
    if (!value.is_array() || value.size() != count) throw InputError(file_, key_path(key), expectation);
    std::vector<std::int64_t> numbers;
    for (const nlohmann::json& element : value) {
      const bool in_range = element.is_number_integer() && element.get<std::int64_t>() >= 1 &&
                            element.get<std::int64_t>() <= kMostModelWidth;
      if (!in_range) throw InputError(file_, key_path(key), expectation);
      numbers.push_back(element.get<std::int64_t>());
    }
    return numbers;
  }

 private:
  const nlohmann::json& json_;
  std::string file_;
  std::string path_;  // the object's own key path; empty for the document
};

nlohmann::json parse_json_file(const std::filesystem::path& file) {
  std::ifstream stream = open_input_file(file.string(), kLargestDocument);
  try {
    nlohmann::json json = nlohmann::json::parse(stream, refuse_duplicate_keys(file.string()));
    if (!json.is_object()) throw InputError(file.string(), "", "a JSON object at the top level");
    return json;
  } catch (const nlohmann::json::exception& error) {  // parse errors and out-of-range numbers alike
    throw InputError(file.string(), "", fmt::format("well-formed JSON ({})", error.what()));
  }
}

bool per_head_qk_norm(const std::string& model_type) {
  return model_type == "qwen3_moe" || model_type == "qwen3" || model_type == "qwen3_next" ||
         model_type.starts_with("qwen3_5");
}

// DeepSeek sparse attention (deepseek_v32, glm_moe_dsa): the indexer's heads, head width and top-k.
void read_indexer(const ConfigView& config, Attention& attention) {
  if (!config.has("index_topk")) return;
  attention.indexer.heads = config.count("index_n_heads");
  attention.indexer.head_dim = config.integer("index_head_dim");
  attention.indexer.topk = config.integer("index_topk");
}

// Llama-4 chunked local attention: the layers that use RoPE (no_rope_layers[i] = 1) attend within their chunk
// of attention_chunk_size tokens, bounded like a sliding window; without the list, every 4th layer is global.
void read_chunked_attention(const ConfigView& config, Model& model) {
  if (!config.has("attention_chunk_size")) return;
  Attention& attention = model.attention;
  attention.sliding_window = config.integer("attention_chunk_size");
  if (config.has("no_rope_layers") && config.raw("no_rope_layers").is_array()) {
    const auto& layers = config.raw("no_rope_layers");
    attention.sliding_layers = std::count(layers.begin(), layers.end(), nlohmann::json(1));
  } else {
    attention.sliding_layers = model.num_layers - model.num_layers / 4;
  }
}

// Gated DeltaNet (qwen3_next, qwen3_5_moe): layer_types names each layer; without it every
// full_attention_interval-th layer is full attention.
void read_linear_attention(const ConfigView& config, Model& model) {
  if (!config.has("linear_num_value_heads")) return;
  LinearAttention& linear = model.linear_attention;
  if (config.has("layer_types") && config.raw("layer_types").is_array()) {
    const auto& types = config.raw("layer_types");
    linear.layers = std::count(types.begin(), types.end(), nlohmann::json("linear_attention"));
  } else {
    const std::int64_t interval = config.integer_or("full_attention_interval", 4);
    linear.layers = model.num_layers - model.num_layers / interval;
  }
  linear.key_heads = config.count("linear_num_key_heads");
  linear.value_heads = config.count("linear_num_value_heads");
  linear.key_head_dim = config.integer("linear_key_head_dim");
  linear.value_head_dim = config.integer("linear_value_head_dim");
  linear.conv_kernel = config.integer("linear_conv_kernel_dim");
  const std::string state = config.text_or("mamba_ssm_dtype", "bfloat16");
  linear.state_dtype = state == "float32" ? DType::fp32 : DType::bf16;
}

// Without a head_dim key, Hugging Face's attention takes hidden_size / num_attention_heads, which must be a
// whole, positive width: 64 / 128 would give 0 and a 0-wide head divides by zero downstream.
std::int64_t derived_head_dim(const ConfigView& config, const Model& model) {
  const std::int64_t heads = model.attention.num_heads;
  if (model.hidden_size % heads != 0 || model.hidden_size < heads) {
    throw InputError(config.file(), "head_dim",
                     fmt::format("a head_dim key, or hidden_size ({}) a whole multiple of num_attention_heads ({})",
                                 model.hidden_size, heads));
  }
  return model.hidden_size / heads;
}

void read_attention(const ConfigView& config, const std::string& model_type, Model& model) {
  Attention& attention = model.attention;
  attention.num_heads = config.count("num_attention_heads");
  if (config.has("kv_lora_rank")) {
    attention.kind = AttentionKind::mla;
    attention.num_kv_heads = attention.num_heads;
    attention.q_lora_rank = config.integer_or("q_lora_rank", 0, 0);
    attention.kv_lora_rank = config.integer("kv_lora_rank");
    attention.qk_nope_head_dim = config.integer("qk_nope_head_dim");
    attention.qk_rope_head_dim = config.integer("qk_rope_head_dim");
    attention.v_head_dim = config.integer("v_head_dim");
    read_indexer(config, attention);
    return;
  }
  attention.kind = AttentionKind::gqa;
  attention.num_kv_heads = config.count_or("num_key_value_heads", attention.num_heads);
  attention.head_dim = config.has("head_dim") ? config.integer("head_dim") : derived_head_dim(config, model);
  const bool gpt_oss = model_type == "gpt_oss";
  // gpt-oss carries q/k/v/o biases and per-head sinks by architecture, not by a config key.
  attention.qkv_bias = gpt_oss || config.flag_or("attention_bias", false);
  attention.o_bias = gpt_oss;
  attention.sinks = gpt_oss;
  // Qwen3 and the Qwen3-Next family normalise q and k per head by architecture; MiniMax-M2 says use_qk_norm.
  attention.qk_norm = per_head_qk_norm(model_type) || config.flag_or("use_qk_norm", false);
  attention.qk_norm_across_heads = config.text_or("qk_norm_type", "per_head") == "per_layer";
  // Qwen3-Next gates every full-attention output by architecture; Qwen3.5 says attn_output_gate.
  attention.output_gate = model_type == "qwen3_next" || config.flag_or("attn_output_gate", false);
  if (config.has("layer_types") && config.raw("layer_types").is_array()) {
    const auto& types = config.raw("layer_types");
    attention.sliding_layers = std::count(types.begin(), types.end(), nlohmann::json("sliding_attention"));
    if (attention.sliding_layers > 0) attention.sliding_window = config.integer("sliding_window");
  }
  read_chunked_attention(config, model);
}

bool has_experts(const ConfigView& config) {
  return config.has("n_routed_experts") || config.has("num_local_experts") || config.has("num_experts");
}

// Shared experts: DeepSeek's n_shared_experts, Qwen's shared_expert_intermediate_size (one, gated), MiniMax's
// shared_intermediate_size (0: none), Llama-4's one by architecture.
void read_shared_experts(const ConfigView& config, const std::string& model_type, Moe& moe) {
  moe.shared_experts = config.count_or("n_shared_experts", 0, 0);
  moe.shared_intermediate_size = moe.intermediate_size;
  if (config.has("shared_expert_intermediate_size")) {
    moe.shared_experts = 1;
    moe.shared_intermediate_size = config.integer("shared_expert_intermediate_size");
    moe.shared_expert_gate = true;
  } else if (config.integer_or("shared_intermediate_size", 0, 0) > 0) {
    moe.shared_experts = 1;
    moe.shared_intermediate_size = config.integer("shared_intermediate_size");
  } else if (model_type.starts_with("llama4")) {
    moe.shared_experts = 1;
  }
}

void read_moe(const ConfigView& config, const std::string& model_type, Model& model) {
  Moe& moe = model.moe;
  if (!has_experts(config)) return;  // a dense model
  // Mixtral, gpt-oss, MiniMax-M2 and Llama-4 name the expert width intermediate_size.
  const bool expert_sized_intermediate = model_type == "mixtral" || model_type == "gpt_oss" ||
                                         model_type == "minimax_m2" || model_type.starts_with("llama4");
  if (config.has("n_routed_experts")) {
    moe.num_experts = config.count("n_routed_experts");
  } else if (config.has("num_local_experts")) {
    moe.num_experts = config.count("num_local_experts");
  } else {
    moe.num_experts = config.count("num_experts");
  }
  moe.experts_per_token =
      config.has("num_experts_per_tok") ? config.count("num_experts_per_tok") : config.count("experts_per_token");
  moe.intermediate_size =
      expert_sized_intermediate ? config.integer("intermediate_size") : config.integer("moe_intermediate_size");
  read_shared_experts(config, model_type, moe);
  moe.num_groups = config.count_or("n_group", 1);
  moe.topk_groups = config.count_or("topk_group", moe.num_groups);
  // GLM-4.5 and Llama-4 score with a sigmoid by architecture.
  const bool sigmoid_by_architecture = model_type == "glm4_moe" || model_type.starts_with("llama4");
  const std::string scoring = config.text_or("scoring_func", sigmoid_by_architecture ? "sigmoid" : "softmax");
  moe.scoring = scoring == "sigmoid" ? Scoring::sigmoid : Scoring::softmax;
  moe.routed_scaling_factor = config.number_or("routed_scaling_factor", 1.0);
  moe.correction_bias = config.text_or("topk_method", "") == "noaux_tc" || model_type == "glm4_moe" ||
                        config.flag_or("use_routing_bias", false);
  // Llama-4 scales its one expert by the sigmoid of its own logit, with no renormalisation.
  moe.normalize_topk = config.flag_or("norm_topk_prob", !model_type.starts_with("llama4"));
  moe.layer_step = config.integer_or("interleave_moe_layer_step", config.integer_or("decoder_sparse_step", 1));
  moe.router_bias = model_type == "gpt_oss";
  moe.expert_bias = model_type == "gpt_oss";
}

void read_dense_layers(const ConfigView& config, const std::string& model_type, Model& model) {
  if (!model.has_moe()) {
    model.dense_layers = model.num_layers;
    model.dense_intermediate_size = config.integer("intermediate_size");
    return;
  }
  model.dense_layers = config.count_or("first_k_dense_replace", 0, 0);
  if (config.has("mlp_only_layers") && config.raw("mlp_only_layers").is_array() &&
      !config.raw("mlp_only_layers").empty()) {
    throw InputError(config.file(), "mlp_only_layers", "an empty list (interleaved dense layers are not modelled)");
  }
  // Llama-4's dense layers between the MoE ones take intermediate_size_mlp (intermediate_size is the experts').
  const char* dense_width = model_type.starts_with("llama4") ? "intermediate_size_mlp" : "intermediate_size";
  if (model.dense_ffn_layers() > 0) model.dense_intermediate_size = config.integer(dense_width);
}

// Every linear layer's weights (attention, dense and expert MLPs) in `dtype`; router, embedding and head unchanged.
void set_linear_weights(Model& model, DType dtype) {
  model.weights.attention = model.weights.dense_ffn = dtype;
  model.weights.experts = model.weights.shared_experts = dtype;
}

// [compressed-tensors-int4]: Kimi-K2-Thinking's pack-quantized W4A16, symmetric INT4 in groups along the
// input dimension; its ignore list keeps attention, the shared and dense MLPs and the head in BF16.
void read_compressed_tensors(const ConfigView& quantization, Model& model) {
  const std::string expectation = "one group of 4-bit integer weights with strategy group";
  if (!quantization.has("config_groups") || !quantization.raw("config_groups").is_object() ||
      quantization.raw("config_groups").size() != 1) {
    throw InputError(quantization.file(), quantization.key_path("config_groups"), expectation);
  }
  const ConfigView groups = quantization.object("config_groups");
  const std::string name = quantization.raw("config_groups").begin().key();
  const ConfigView weights = groups.object(name.c_str()).object("weights");
  if (weights.integer("num_bits") != 4 || weights.text_or("type", "") != "int" ||
      weights.text_or("strategy", "") != "group") {
    throw InputError(quantization.file(), weights.key_path("num_bits"), expectation);
  }
  model.weights.experts = DType::int4;
  model.weights.block.group = weights.integer("group_size");
}

void read_quantization(const ConfigView& config, Model& model) {
  if (!config.has("quantization_config")) return;
  const ConfigView quantization = config.object("quantization_config");
  const std::string method = quantization.text_or("quant_method", "");
  if (method == "fp8") {
    // vLLM's Fp8Config: block scales with weight_block_size, one scale per tensor without [fp8-per-tensor].
    const bool blocks = quantization.has("weight_block_size");
    set_linear_weights(model, blocks ? DType::fp8_e4m3 : DType::fp8_per_tensor);
    if (blocks) {
      const std::vector<std::int64_t> block = quantization.integers("weight_block_size", 2);
      model.weights.block = {block[0], block[1]};
    }
  } else if (method == "modelopt" && quantization.text_or("quant_algo", "") == "FP8") {
    set_linear_weights(model, DType::fp8_per_tensor);  // modelopt FP8: per-tensor weight and input scales
  } else if (method == "mxfp4") {
    model.weights.experts = DType::mxfp4;  // gpt-oss: everything else stays bf16 (modules_to_not_convert)
  } else if (method == "compressed-tensors") {
    read_compressed_tensors(quantization, model);
  } else if (method == "modelopt" && quantization.text_or("quant_algo", "") == "NVFP4") {
    // [nvfp4]: modelopt's NVFP4 checkpoints quantise the MLPs and keep attention in BF16.
    model.weights.dense_ffn = model.weights.experts = model.weights.shared_experts = DType::nvfp4;
  } else {
    throw InputError(config.file(), quantization.key_path("quant_method"),
                     "fp8, mxfp4, compressed-tensors (int4 group) or modelopt (NVFP4 or FP8), got '" + method + "'");
  }
}

// A ModelOpt checkpoint may keep its quantization in hf_quant_config.json beside config.json instead of
// in config.json's quantization_config: {"quantization": {"quant_algo": "FP8" or "NVFP4", ...}} [modelopt-hf-quant].
void read_modelopt_quantization_file(const std::filesystem::path& file, Model& model) {
  const nlohmann::json json = parse_json_file(file);
  const ConfigView top(json, file.string());
  if (!top.has("quantization")) throw InputError(file.string(), "quantization", "a JSON object (the key is missing)");
  const ConfigView quantization = top.object("quantization");
  const std::string algorithm = quantization.text_or("quant_algo", "");
  if (algorithm == "FP8") {
    set_linear_weights(model, DType::fp8_per_tensor);
  } else if (algorithm == "NVFP4") {
    model.weights.dense_ffn = model.weights.experts = model.weights.shared_experts = DType::nvfp4;
  } else {
    throw InputError(file.string(), quantization.key_path("quant_algo"), "FP8 or NVFP4, got '" + algorithm + "'");
  }
}

}  // namespace

Model load_hf_config(const std::filesystem::path& file) {
  const nlohmann::json json = parse_json_file(file);
  const ConfigView top(json, file.string());
  // Multimodal wrappers (Qwen3.5, Kimi-K2.5, Llama-4) keep the language model's fields in text_config.
  const ConfigView config = top.has("text_config") ? top.object("text_config") : top;
  const std::string model_type = config.text_or("model_type", top.text_or("model_type", ""));
  Model model;
  model.file = file.string();
  model.name = top.text_or("_name_or_path", model_type.empty() ? file.stem().string() : model_type);
  if (is_hugging_face_id(model.name)) model.hf_id = model.name;
  model.source = file.string();
  model.hidden_size = config.integer("hidden_size");
  model.num_layers = config.count("num_hidden_layers");
  model.vocab_size = config.integer("vocab_size", 1, std::int64_t{1} << 24);
  model.tie_embeddings = config.flag_or("tie_word_embeddings", false);
  model.mtp_layers = config.integer_or("num_nextn_predict_layers", 0, 0, 64);
  read_attention(config, model_type, model);
  read_linear_attention(config, model);
  read_moe(config, model_type, model);
  read_dense_layers(config, model_type, model);
  read_quantization(config.has("quantization_config") ? config : top, model);
  const std::filesystem::path quantization_file = file.parent_path() / "hf_quant_config.json";
  std::error_code error;
  if (!config.has("quantization_config") && !top.has("quantization_config") &&
      std::filesystem::exists(quantization_file, error)) {
    read_modelopt_quantization_file(quantization_file, model);
  }
  validate_model(model);
  return model;
}

}  // namespace moeplan
