#include "spec/model.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string_view>

#include "io/input_error.hpp"
#include "spec/shape_limits.hpp"
#include "spec/weight_tensors.hpp"
#include "spec/yaml_view.hpp"

namespace moeplan {

namespace {

DType read_dtype(const YamlView& view, const std::string& key, DType fallback) {
  if (!view.has(key)) return fallback;
  try {
    return parse_dtype(view.text(key));
  } catch (const std::invalid_argument& error) {
    throw InputError(view.file(), view.key_path(key), error.what());
  }
}

SparseIndexer read_indexer(const YamlView& view) {
  view.expect_only({"heads", "head_dim", "topk", "key_dtype"});
  SparseIndexer indexer;
  indexer.heads = view.integer("heads", 1, kMostModelCount);
  indexer.head_dim = view.integer("head_dim", 1, kMostModelWidth);
  indexer.topk = view.integer("topk", 1, kMostModelWidth);
  indexer.key_dtype = read_dtype(view, "key_dtype", DType::fp8_e4m3);
  return indexer;
}

Attention read_attention(const YamlView& view) {
  view.expect_only({"type", "num_heads", "num_kv_heads", "head_dim", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim",
                    "qk_rope_head_dim", "v_head_dim", "qkv_bias", "o_bias", "qk_norm", "qk_norm_across_heads",
                    "output_gate", "sinks", "sliding_window", "sliding_layers", "indexer"});
  Attention attention;
  const std::string type = view.text("type");
  attention.num_heads = view.integer("num_heads", 1, kMostModelCount);
  if (type == "mla") {
    attention.kind = AttentionKind::mla;
    attention.num_kv_heads = attention.num_heads;
    attention.q_lora_rank = view.integer_or("q_lora_rank", 0, 0, kMostModelWidth);
    attention.kv_lora_rank = view.integer("kv_lora_rank", 1, kMostModelWidth);
    attention.qk_nope_head_dim = view.integer("qk_nope_head_dim", 1, kMostModelWidth);
    attention.qk_rope_head_dim = view.integer("qk_rope_head_dim", 1, kMostModelWidth);
    attention.v_head_dim = view.integer("v_head_dim", 1, kMostModelWidth);
  } else if (type == "gqa" || type == "mha") {
    attention.kind = AttentionKind::gqa;
    attention.num_kv_heads = type == "mha" ? attention.num_heads : view.integer("num_kv_heads", 1, kMostModelCount);
    attention.head_dim = view.integer("head_dim", 1, kMostModelWidth);
  } else {
    throw InputError(view.file(), view.key_path("type"), fmt::format("one of mla, gqa, mha, got '{}'", type));
  }
  attention.qkv_bias = view.flag_or("qkv_bias", false);
  attention.o_bias = view.flag_or("o_bias", false);
  attention.qk_norm = view.flag_or("qk_norm", false);
  attention.sinks = view.flag_or("sinks", false);
  attention.sliding_window = view.integer_or("sliding_window", 0, 0, kMostModelWidth);
  attention.sliding_layers = view.integer_or("sliding_layers", 0, 0, kMostModelCount);
  attention.qk_norm_across_heads = view.flag_or("qk_norm_across_heads", false);
  attention.output_gate = view.flag_or("output_gate", false);
  if (const auto indexer = view.optional_child("indexer")) attention.indexer = read_indexer(*indexer);
  return attention;
}

LinearAttention read_linear_attention(const YamlView& view) {
  view.expect_only(
      {"type", "layers", "key_heads", "value_heads", "key_head_dim", "value_head_dim", "conv_kernel", "state_dtype"});
  const std::string type = view.text("type");
  if (type != "gated_deltanet") {
    throw InputError(view.file(), view.key_path("type"), fmt::format("gated_deltanet, got '{}'", type));
  }
  LinearAttention linear;
  linear.layers = view.integer("layers", 1, kMostModelCount);
  linear.key_heads = view.integer("key_heads", 1, kMostModelCount);
  linear.value_heads = view.integer("value_heads", 1, kMostModelCount);
  linear.key_head_dim = view.integer("key_head_dim", 1, kMostModelWidth);
  linear.value_head_dim = view.integer("value_head_dim", 1, kMostModelWidth);
  linear.conv_kernel = view.integer("conv_kernel", 1, 64);
  linear.state_dtype = read_dtype(view, "state_dtype", DType::bf16);
  return linear;
}

Moe read_moe(const YamlView& view) {
  view.expect_only({"num_experts", "experts_per_token", "intermediate_size", "shared_experts",
                    "shared_intermediate_size", "num_groups", "topk_groups", "scoring", "routed_scaling_factor",
                    "correction_bias", "router_bias", "normalize_topk", "expert_bias", "shared_expert_gate",
                    "layer_step"});
  Moe moe;
  moe.num_experts = view.integer("num_experts", 1, kMostModelCount);
  moe.experts_per_token = view.integer("experts_per_token", 1, kMostModelCount);
  moe.intermediate_size = view.integer("intermediate_size", 1, kMostModelWidth);
  moe.shared_experts = view.integer_or("shared_experts", 0, 0, kMostModelCount);
  moe.shared_intermediate_size = view.integer_or("shared_intermediate_size", moe.intermediate_size, 1, kMostModelWidth);
  moe.num_groups = view.integer_or("num_groups", 1, 1, kMostModelCount);
  moe.topk_groups = view.integer_or("topk_groups", moe.num_groups, 1, kMostModelCount);
  const std::string scoring = view.text_or("scoring", "softmax");
  if (scoring == "softmax") {
    moe.scoring = Scoring::softmax;
  } else if (scoring == "sigmoid") {
    moe.scoring = Scoring::sigmoid;
  } else {
    throw InputError(view.file(), view.key_path("scoring"), fmt::format("softmax or sigmoid, got '{}'", scoring));
  }
  moe.routed_scaling_factor = view.number_or("routed_scaling_factor", 1.0, 1e-6, 1e6);
  moe.correction_bias = view.flag_or("correction_bias", false);
  moe.router_bias = view.flag_or("router_bias", false);
  moe.normalize_topk = view.flag_or("normalize_topk", true);
  moe.expert_bias = view.flag_or("expert_bias", false);
  moe.shared_expert_gate = view.flag_or("shared_expert_gate", false);
  moe.layer_step = view.integer_or("layer_step", 1, 1, kMostModelCount);
  return moe;
}

WeightFormats read_weights(const YamlView& view) {
  view.expect_only({"dtype", "block", "group_size", "attention", "dense_ffn", "experts", "shared_experts", "router",
                    "embedding", "lm_head", "norms"});
  WeightFormats formats;
  const DType main = read_dtype(view, "dtype", DType::bf16);
  formats.attention = read_dtype(view, "attention", main);
  formats.dense_ffn = read_dtype(view, "dense_ffn", main);
  formats.experts = read_dtype(view, "experts", main);
  formats.shared_experts = read_dtype(view, "shared_experts", formats.experts);
  // Checkpoints keep the router, embeddings, head and norms in 16-bit even when the linears are quantised.
  formats.router = read_dtype(view, "router", DType::bf16);
  formats.embedding = read_dtype(view, "embedding", DType::bf16);
  formats.lm_head = read_dtype(view, "lm_head", DType::bf16);
  formats.norms = read_dtype(view, "norms", DType::bf16);
  if (view.has("block")) {
    const auto block = view.integer_list("block", 1, kMostModelWidth);
    if (block.size() != 2) throw InputError(view.file(), view.key_path("block"), "two integers [rows, cols]");
    formats.block.rows = block[0];
    formats.block.cols = block[1];
  }
  formats.block.group = view.integer_or("group_size", formats.block.group, 1, kMostModelWidth);
  return formats;
}

Published read_published(const YamlView& view) {
  view.expect_only({"source", "total_params", "active_params", "active_counts"});
  Published published;
  published.source = view.text("source");
  published.total_params = view.number("total_params", 1, 1e15);
  published.active_params = view.number("active_params", 1, 1e15);
  const std::string counts = view.text_or("active_counts", "embedding_and_head");
  if (counts == "embedding_and_head") {
    published.active_counts = ActiveCount::embedding_and_head;
  } else if (counts == "head_only") {
    published.active_counts = ActiveCount::head_only;
  } else if (counts == "neither") {
    published.active_counts = ActiveCount::neither;
  } else {
    throw InputError(view.file(), view.key_path("active_counts"),
                     fmt::format("embedding_and_head, head_only or neither, got '{}'", counts));
  }
  return published;
}

}  // namespace

std::uint64_t SparseIndexer::key_bytes() const {
  // One FP32 scale per 128 elements for FP8 keys (DeepSeek-V3.2's indexer cache [deepseek-v3.2-config]).
  constexpr std::int64_t kScaleGroup = 128;
  const auto data = static_cast<std::uint64_t>(static_cast<double>(head_dim) * element_bytes(key_dtype));
  if (key_dtype != DType::fp8_e4m3) return data;
  return data + 4 * static_cast<std::uint64_t>(divide_rounding_up(head_dim, kScaleGroup));
}

std::int64_t Attention::o_input_width() const {
  return kind == AttentionKind::mla ? num_heads * v_head_dim : num_heads * head_dim;
}

std::int64_t Attention::query_width() const {
  return kind == AttentionKind::mla ? num_heads * (qk_nope_head_dim + qk_rope_head_dim) : num_heads * head_dim;
}

namespace {

bool is_id_part(std::string_view part) {
  if (part.empty() || part.size() > 96 || part.front() == '.' || part.front() == '-') return false;
  return std::all_of(part.begin(), part.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

DType read_kv_cache_dtype(const YamlView& root, DType fallback) {
  if (!root.has("kv_cache_dtype")) return fallback;
  try {
    return parse_kv_cache_dtype(root.text("kv_cache_dtype"));
  } catch (const std::invalid_argument& error) {
    throw InputError(root.file(), root.key_path("kv_cache_dtype"), error.what());
  }
}

std::string read_hf_id(const YamlView& root) {
  std::string id = root.text_or("hf_id", "");
  if (!id.empty() && !is_hugging_face_id(id)) {
    throw InputError(root.file(), "hf_id", "a Hugging Face id such as deepseek-ai/DeepSeek-V3, got '" + id + "'");
  }
  return id;
}

// A weight-format variant (an FP8 or FP4 checkpoint of a published model): `base` names the model YAML,
// relative to this file, whose architecture it shares; the variant gives its own name, source, weights and KV
// cache format, and keeps the base's published totals unless it gives its own.
Model load_variant(const YamlView& root, const std::filesystem::path& file) {
  root.expect_only({"schema_version", "base", "name", "hf_id", "source", "weights", "kv_cache_dtype", "published"});
  const std::filesystem::path base_file = file.parent_path() / root.text("base");
  if (YamlView::load_file(base_file).has("base")) {
    throw InputError(file.string(), "base", "a model YAML without a base of its own, got " + base_file.string());
  }
  Model model = load_model_yaml(base_file);
  model.file = file.string();
  model.name = root.text("name");
  model.hf_id = read_hf_id(root);
  model.source = root.text("source");
  if (const auto weights = root.optional_child("weights")) model.weights = read_weights(*weights);
  model.kv_cache_dtype = read_kv_cache_dtype(root, model.kv_cache_dtype);
  if (const auto published = root.optional_child("published")) model.published = read_published(*published);
  validate_model(model);
  return model;
}

}  // namespace

bool is_hugging_face_id(const std::string& id) {
  const std::size_t slash = id.find('/');
  if (slash == std::string::npos) return false;
  const std::string_view view(id);
  return is_id_part(view.substr(0, slash)) && is_id_part(view.substr(slash + 1));
}

std::vector<std::filesystem::path> model_yaml_files(const std::filesystem::path& file) {
  try {
    const YamlView root = YamlView::load_file(file);
    if (!root.has("base")) return {file};
    return {file, file.parent_path() / root.text("base")};
  } catch (const InputError&) {
    return {file};
  }
}

Model load_model_yaml(const std::filesystem::path& file) {
  const YamlView root = YamlView::load_file(file);
  if (root.has("base")) {
    if (root.integer("schema_version", 1, 1000) != 1) {
      throw InputError(file.string(), "schema_version", "1 (the only model schema this moeplan reads)");
    }
    return load_variant(root, file);
  }
  root.expect_only({"schema_version", "name", "hf_id", "source", "hidden_size", "num_layers", "dense_layers",
                    "vocab_size", "tie_word_embeddings", "mtp_layers", "attention", "linear_attention", "dense_ffn",
                    "moe", "weights", "kv_cache_dtype", "published"});
  if (root.integer("schema_version", 1, 1000) != 1) {
    throw InputError(file.string(), "schema_version", "1 (the only model schema this moeplan reads)");
  }
  Model model;
  model.file = file.string();
  model.name = root.text("name");
  model.hf_id = read_hf_id(root);
  model.source = root.text("source");
  model.hidden_size = root.integer("hidden_size", 1, kMostModelWidth);
  model.num_layers = root.integer("num_layers", 1, kMostModelCount);
  // Without a moe block every layer is dense, and dense_layers may only say so.
  model.dense_layers = root.integer_or("dense_layers", root.has("moe") ? 0 : model.num_layers, 0, kMostModelCount);
  model.vocab_size = root.integer("vocab_size", 1, 1 << 24);
  model.tie_embeddings = root.flag_or("tie_word_embeddings", false);
  model.mtp_layers = root.integer_or("mtp_layers", 0, 0, 64);
  model.attention = read_attention(root.child("attention"));
  if (const auto dense = root.optional_child("dense_ffn")) {
    dense->expect_only({"intermediate_size"});
    model.dense_intermediate_size = dense->integer("intermediate_size", 1, kMostModelWidth);
  }
  if (const auto linear = root.optional_child("linear_attention")) {
    model.linear_attention = read_linear_attention(*linear);
  }
  if (const auto moe = root.optional_child("moe")) model.moe = read_moe(*moe);
  if (const auto weights = root.optional_child("weights")) model.weights = read_weights(*weights);
  model.kv_cache_dtype = read_kv_cache_dtype(root, model.kv_cache_dtype);
  if (const auto published = root.optional_child("published")) model.published = read_published(*published);
  validate_model(model);
  return model;
}

namespace {

// Counted in floating point so an absurd shape cannot overflow the 64-bit byte counts downstream.
double parameter_upper_bound(const Model& model) {
  double total = 0;
  const double copies =
      static_cast<double>(std::max({std::int64_t{1}, model.moe.num_experts, model.moe.shared_experts}));
  for (const WeightTensor& tensor : weight_tensors(model)) {
    total += static_cast<double>(tensor.rows) * static_cast<double>(tensor.cols) *
             static_cast<double>(scope_layers(model, tensor.scope)) * copies;
  }
  return total;
}

// Dense, MoE, linear-attention and sparse-attention layers: the counts must fit inside the model.
void validate_layer_kinds(const Model& model) {
  const std::string& file = model.file;
  if (!model.has_moe() && model.dense_layers != model.num_layers) {
    throw InputError(file, "dense_layers", fmt::format("num_layers ({}) when there is no moe block", model.num_layers));
  }
  if (model.has_moe() && (model.dense_layers >= model.num_layers || model.moe_layers() == 0)) {
    throw InputError(file, "dense_layers",
                     fmt::format("fewer than num_layers ({}): a MoE model needs a MoE layer (one in every "
                                 "moe.layer_step = {} past the dense ones)",
                                 model.num_layers, model.moe.layer_step));
  }
  if (model.linear_attention.layers >= model.num_layers) {
    throw InputError(
        file, "linear_attention.layers",
        fmt::format("fewer than num_layers ({}): a hybrid model keeps some attention layers", model.num_layers));
  }
  const LinearAttention& linear = model.linear_attention;
  if (linear.layers > 0 && linear.value_heads % linear.key_heads != 0) {
    throw InputError(file, "linear_attention.value_heads",
                     fmt::format("a multiple of linear_attention.key_heads ({})", linear.key_heads));
  }
  const SparseIndexer& indexer = model.attention.indexer;
  if (indexer.enabled() && model.attention.kind != AttentionKind::mla) {
    throw InputError(file, "attention.indexer", "an MLA attention (the sparse indexer reads the MLA query latent)");
  }
}

void validate_attention_shape(const Model& model) {
  const std::string& file = model.file;
  const Attention& attention = model.attention;
  if (attention.kind == AttentionKind::gqa && attention.num_heads % attention.num_kv_heads != 0) {
    throw InputError(file, "attention.num_kv_heads",
                     fmt::format("a divisor of attention.num_heads ({})", attention.num_heads));
  }
  if (attention.sliding_layers > model.num_layers) {
    throw InputError(file, "attention.sliding_layers", fmt::format("at most num_layers ({})", model.num_layers));
  }
  if (attention.sliding_layers > 0 && attention.sliding_window == 0) {
    throw InputError(file, "attention.sliding_window", "a positive window because sliding_layers > 0");
  }
}

}  // namespace

void validate_model(const Model& model) {
  const std::string& file = model.file;
  constexpr double kMaxParameters = 1e15;  // 1000x the largest published model; keeps byte counts in 64 bits
  if (parameter_upper_bound(model) > kMaxParameters) {
    throw InputError(file, "hidden_size", "a model below 1e15 parameters (the shapes given multiply past it)");
  }
  validate_layer_kinds(model);
  if (model.dense_ffn_layers() > 0 && model.dense_intermediate_size == 0) {
    throw InputError(file, "dense_ffn.intermediate_size", "a positive width because some layers have a dense FFN");
  }
  const Moe& moe = model.moe;
  if (!model.has_moe()) return validate_attention_shape(model);
  if (moe.experts_per_token > moe.num_experts) {
    throw InputError(file, "moe.experts_per_token", fmt::format("at most moe.num_experts ({})", moe.num_experts));
  }
  if (moe.num_experts % moe.num_groups != 0) {
    throw InputError(file, "moe.num_groups", fmt::format("a divisor of moe.num_experts ({})", moe.num_experts));
  }
  if (moe.topk_groups > moe.num_groups) {
    throw InputError(file, "moe.topk_groups", fmt::format("at most moe.num_groups ({})", moe.num_groups));
  }
  if (moe.num_groups > 1 && moe.experts_per_token > moe.topk_groups * (moe.num_experts / moe.num_groups)) {
    throw InputError(file, "moe.experts_per_token", "no more than the experts inside the kept groups");
  }
  validate_attention_shape(model);
}

void require_moe(const Model& model, const std::string& purpose) {
  if (model.has_moe()) return;
  throw InputError(model.file, "moe",
                   fmt::format("a moe block: {} needs experts, and {} is a dense model", purpose, model.name));
}

}  // namespace moeplan
