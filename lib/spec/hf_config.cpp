#include "spec/hf_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/input_error.hpp"
#include "spec/shape_limits.hpp"

namespace moeplan {

namespace {

// Typed reads from the config object (or one nested in it, at `path`); every failure names the file and the key.
class ConfigView {
 public:
  ConfigView(const nlohmann::json& json, std::string file, std::string path = "")
      : json_(json), file_(std::move(file)), path_(std::move(path)) {}

  bool has(const char* key) const { return json_.contains(key) && !json_[key].is_null(); }

  std::int64_t integer(const char* key, std::int64_t minimum = 1) const {
    if (!has(key)) throw InputError(file_, key_path(key), "an integer (the key is missing)");
    const nlohmann::json& value = json_[key];
    if (!value.is_number_integer() || value.get<std::int64_t>() < minimum ||
        value.get<std::int64_t>() > kMostModelWidth) {
      throw InputError(file_, key_path(key),
                       fmt::format("an integer in [{}, {}], got {}", minimum, kMostModelWidth, value.dump()));
    }
    return value.get<std::int64_t>();
  }
  std::int64_t integer_or(const char* key, std::int64_t fallback, std::int64_t minimum = 1) const {
    return has(key) ? integer(key, minimum) : fallback;
  }
  double number_or(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const nlohmann::json& value = json_[key];
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0) {
      throw InputError(file_, key_path(key), fmt::format("a positive finite number, got {}", value.dump()));
    }
    return value.get<double>();
  }
  bool flag_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!json_[key].is_boolean()) throw InputError(file_, key_path(key), "true or false, got " + json_[key].dump());
    return json_[key].get<bool>();
  }
  std::string text_or(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!json_[key].is_string()) throw InputError(file_, key_path(key), "a string, got " + json_[key].dump());
    return json_[key].get<std::string>();
  }
  const nlohmann::json& raw(const char* key) const { return json_[key]; }
  const std::string& file() const { return file_; }
  std::string key_path(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

  // The object at `key`, read with keys named below it.
  ConfigView object(const char* key) const {
    if (!json_[key].is_object()) throw InputError(file_, key_path(key), "a JSON object, got " + json_[key].dump());
    return ConfigView(json_[key], file_, key_path(key));
  }
  // A list of `count` integers in [1, kMostModelWidth].
  std::vector<std::int64_t> integers(const char* key, std::size_t count) const {
    const nlohmann::json& value = json_[key];
    const std::string expectation =
        fmt::format("a list of {} integers in [1, {}], got {}", count, kMostModelWidth, value.dump());
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
  std::ifstream stream(file);
  if (!stream) throw InputError(file.string(), "", "an existing, readable file");
  try {
    nlohmann::json json = nlohmann::json::parse(stream);
    if (!json.is_object()) throw InputError(file.string(), "", "a JSON object at the top level");
    return json;
  } catch (const nlohmann::json::exception& error) {  // parse errors and out-of-range numbers alike
    throw InputError(file.string(), "", fmt::format("well-formed JSON ({})", error.what()));
  }
}

void read_attention(const ConfigView& config, const std::string& model_type, Model& model) {
  Attention& attention = model.attention;
  attention.num_heads = config.integer("num_attention_heads");
  if (config.has("kv_lora_rank")) {
    attention.kind = AttentionKind::mla;
    attention.num_kv_heads = attention.num_heads;
    attention.q_lora_rank = config.integer_or("q_lora_rank", 0, 0);
    attention.kv_lora_rank = config.integer("kv_lora_rank");
    attention.qk_nope_head_dim = config.integer("qk_nope_head_dim");
    attention.qk_rope_head_dim = config.integer("qk_rope_head_dim");
    attention.v_head_dim = config.integer("v_head_dim");
    return;
  }
  attention.kind = AttentionKind::gqa;
  attention.num_kv_heads = config.integer_or("num_key_value_heads", attention.num_heads);
  attention.head_dim = config.integer_or("head_dim", model.hidden_size / attention.num_heads);
  const bool gpt_oss = model_type == "gpt_oss";
  // gpt-oss carries q/k/v/o biases and per-head sinks by architecture, not by a config key.
  attention.qkv_bias = gpt_oss || config.flag_or("attention_bias", false);
  attention.o_bias = gpt_oss;
  attention.sinks = gpt_oss;
  attention.qk_norm = model_type == "qwen3_moe" || config.flag_or("use_qk_norm", false);
  if (config.has("layer_types") && config.raw("layer_types").is_array()) {
    const auto& types = config.raw("layer_types");
    attention.sliding_layers = std::count(types.begin(), types.end(), nlohmann::json("sliding_attention"));
    if (attention.sliding_layers > 0) attention.sliding_window = config.integer("sliding_window");
  }
}

void read_moe(const ConfigView& config, const std::string& model_type, Model& model) {
  Moe& moe = model.moe;
  const bool expert_sized_intermediate = model_type == "mixtral" || model_type == "gpt_oss";
  if (config.has("n_routed_experts")) {
    moe.num_experts = config.integer("n_routed_experts");
  } else if (config.has("num_local_experts")) {
    moe.num_experts = config.integer("num_local_experts");
  } else {
    moe.num_experts = config.integer("num_experts");
  }
  moe.experts_per_token =
      config.has("num_experts_per_tok") ? config.integer("num_experts_per_tok") : config.integer("experts_per_token");
  moe.intermediate_size =
      expert_sized_intermediate ? config.integer("intermediate_size") : config.integer("moe_intermediate_size");
  moe.shared_experts = config.integer_or("n_shared_experts", 0, 0);
  moe.shared_intermediate_size = moe.intermediate_size;
  moe.num_groups = config.integer_or("n_group", 1);
  moe.topk_groups = config.integer_or("topk_group", moe.num_groups);
  const std::string scoring = config.text_or("scoring_func", model_type == "glm4_moe" ? "sigmoid" : "softmax");
  moe.scoring = scoring == "sigmoid" ? Scoring::sigmoid : Scoring::softmax;
  moe.routed_scaling_factor = config.number_or("routed_scaling_factor", 1.0);
  moe.correction_bias = config.text_or("topk_method", "") == "noaux_tc" || model_type == "glm4_moe";
  moe.normalize_topk = config.flag_or("norm_topk_prob", true);
  moe.router_bias = model_type == "gpt_oss";
  moe.expert_bias = model_type == "gpt_oss";
}

void read_dense_layers(const ConfigView& config, Model& model) {
  model.dense_layers = config.integer_or("first_k_dense_replace", 0, 0);
  if (config.has("mlp_only_layers") && config.raw("mlp_only_layers").is_array() &&
      !config.raw("mlp_only_layers").empty()) {
    throw InputError(config.file(), "mlp_only_layers", "an empty list (interleaved dense layers are not modelled)");
  }
  if (model.dense_layers > 0) model.dense_intermediate_size = config.integer("intermediate_size");
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

}  // namespace

Model load_hf_config(const std::filesystem::path& file) {
  const nlohmann::json json = parse_json_file(file);
  const ConfigView config(json, file.string());
  const std::string model_type = config.text_or("model_type", "");
  Model model;
  model.file = file.string();
  model.name = config.text_or("_name_or_path", model_type.empty() ? file.stem().string() : model_type);
  if (is_hugging_face_id(model.name)) model.hf_id = model.name;
  model.source = file.string();
  model.hidden_size = config.integer("hidden_size");
  model.num_layers = config.integer("num_hidden_layers");
  model.vocab_size = config.integer("vocab_size");
  model.tie_embeddings = config.flag_or("tie_word_embeddings", false);
  model.mtp_layers = config.integer_or("num_nextn_predict_layers", 0, 0);
  read_attention(config, model_type, model);
  read_moe(config, model_type, model);
  read_dense_layers(config, model);
  read_quantization(config, model);
  validate_model(model);
  return model;
}

}  // namespace moeplan
