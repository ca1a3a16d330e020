#include "cost/memory.hpp"

#include <algorithm>
#include <optional>

#include "cost/engine_memory.hpp"
#include "spec/dtype.hpp"

namespace moeplan {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

// Expert TP degree for this component: fused shared slots live inside the MoE kernel [doc-002],
// an unfused shared expert is a dense MLP split like the dense FFN.
std::int64_t expert_tp(const Layout& layout, Component component) {
  if (component == Component::shared_experts && layout.fused_shared == 0) return layout.dense_tp_size();
  return layout.moe_tp();
}

struct LocalShape {
  std::int64_t rows;
  std::int64_t cols;
};

LocalShape local_shape(const WeightTensor& tensor, const Layout& layout) {
  const std::int64_t attention_split = layout.tp * layout.qkvtp;
  const std::int64_t expert_split = expert_tp(layout, tensor.component);
  switch (tensor.split) {
    case Split::replicated: return {tensor.rows, tensor.cols};
    case Split::query_heads: return {tensor.rows / attention_split, tensor.cols};
    case Split::kv_heads: return {std::max(tensor.rows / attention_split, tensor.min_local_rows), tensor.cols};
    case Split::o_input: return {tensor.rows, tensor.cols / (layout.tp * layout.otp)};  // [doc-004]: row-split O
    case Split::dense_rows: return {tensor.rows / layout.dense_tp_size(), tensor.cols};
    case Split::dense_cols: return {tensor.rows, tensor.cols / layout.dense_tp_size()};
    case Split::expert_rows: return {tensor.rows / expert_split, tensor.cols};
    case Split::expert_cols: return {tensor.rows, tensor.cols / expert_split};
    case Split::vocab: return {divide_rounding_up(tensor.rows, layout.lm_head_tp_size()), tensor.cols};
  }
  return {tensor.rows, tensor.cols};
}

// How many copies of an expert tensor one rank holds in each MoE layer.
std::int64_t copies_per_rank(const WeightTensor& tensor, const Model& model, const Layout& layout) {
  if (tensor.component == Component::routed_experts) {
    return layout.physical_experts(model) / layout.ep;  // routed + redundant slots spread over EP
  }
  if (tensor.component == Component::shared_experts) {
    // [doc-002]: num_local_experts = routed/ep + fused_shared; unfused, every rank keeps the shared MLP.
    return layout.fused_shared > 0 ? layout.fused_shared : model.moe.shared_experts;
  }
  return 1;
}

// Copies of `tensor` that `stage` carries: its scope's layers inside the stage; the embedding on the first stage,
// the final norm and the LM head on the last, where a tied head keeps its own copy of the embedding
// (vLLM builds embed_tokens on the last stage too when tie_word_embeddings [vllm-pp-indices]).
std::int64_t stage_scope_layers(const Model& model, const WeightTensor& tensor, const PipelineStage& stage) {
  switch (tensor.scope) {
    case LayerScope::every_layer: return stage.layers;
    case LayerScope::attention_layers:
      return stage.layers - model.linear_attention_layers_in(stage.first_layer, stage.layers);
    case LayerScope::linear_attention_layers: return model.linear_attention_layers_in(stage.first_layer, stage.layers);
    case LayerScope::dense_layers: return stage.layers - model.moe_layers_in(stage.first_layer, stage.layers);
    case LayerScope::moe_layers: return model.moe_layers_in(stage.first_layer, stage.layers);
    case LayerScope::once:
      if (tensor.component != Component::embedding) return stage.last ? 1 : 0;
      return stage.first || (model.tie_embeddings && stage.last) ? 1 : 0;
  }
  return 0;
}

std::uint64_t activation_workspace(const Model& model, const Layout& layout, const MemorySettings& settings) {
  const auto tokens = static_cast<std::uint64_t>(settings.activation_tokens);
  const auto hidden = static_cast<std::uint64_t>(model.hidden_size);
  const std::uint64_t element = 2;  // activations run in bf16
  // Residual stream, normed input, attention output and MoE output of each token.
  const std::uint64_t hidden_buffers = tokens * hidden * element * 4;
  const auto query_width = static_cast<std::uint64_t>(model.attention.query_width() / (layout.tp * layout.qkvtp));
  const std::uint64_t attention = tokens * query_width * element;
  // [vllm-fused-moe]: fused_moe keeps [M, top_k, 2I] gate/up, [M*top_k, I] activated, [M, top_k, h] outputs.
  const auto selected = static_cast<std::uint64_t>(model.moe.experts_per_token + (layout.fused_shared > 0 ? 1 : 0));
  const auto expert_width = static_cast<std::uint64_t>(model.moe.intermediate_size / layout.moe_tp());
  const std::uint64_t moe = tokens * selected * (3 * expert_width + hidden) * element;
  const std::uint64_t dense =
      model.dense_ffn_layers() > 0
          ? tokens * static_cast<std::uint64_t>(3 * model.dense_intermediate_size / layout.dense_tp_size()) * element
          : 0;
  // fp32 logits of one decode batch over this rank's vocabulary slice.
  const std::uint64_t logits =
      static_cast<std::uint64_t>(settings.max_batch) *
      static_cast<std::uint64_t>(divide_rounding_up(model.vocab_size, layout.lm_head_tp_size())) * 4;
  return hidden_buffers + attention + std::max(moe, dense) + logits;
}

std::uint64_t communication_buffers(const Model& model, const Layout& layout, const MemorySettings& settings) {
  if (layout.gpus() == 1) return 0;
  // [sglang-server-args]: SGLang reserves tp*pp/8 GiB for communicators.
  std::uint64_t bytes = static_cast<std::uint64_t>(layout.gpus()) * kGiB / 8;
  if (layout.ep > 1 && model.has_moe()) {
    // All-to-all send and receive buffers for one step's dispatched tokens (bf16, top-k copies each).
    bytes += 2 * static_cast<std::uint64_t>(settings.activation_tokens) *
             static_cast<std::uint64_t>(model.moe.experts_per_token) * static_cast<std::uint64_t>(model.hidden_size) *
             2;
  }
  return bytes;
}

}  // namespace

std::uint64_t WeightBytes::total() const {
  std::uint64_t sum = draft;
  for (const std::uint64_t bytes : by_component) sum += bytes;
  return sum;
}

WeightBytes weight_bytes_per_rank(const Model& model, const Layout& layout, const PipelineStage& stage) {
  WeightBytes weights;
  for (const WeightTensor& tensor : weight_tensors(model)) {
    const LocalShape shape = local_shape(tensor, layout);
    const std::uint64_t one = matrix_bytes(tensor.dtype, shape.rows, shape.cols, model.weights.block);
    weights[tensor.component] += one * static_cast<std::uint64_t>(stage_scope_layers(model, tensor, stage)) *
                                 static_cast<std::uint64_t>(copies_per_rank(tensor, model, layout));
  }
  return weights;
}

WeightBytes weight_bytes_per_rank(const Model& model, const Layout& layout) {
  return weight_bytes_per_rank(model, layout, PipelineStage{0, 0, model.num_layers, true, true});
}

std::uint64_t draft_weight_bytes(const Model& model, const Layout& layout, const DraftShape& draft) {
  if (!draft.present()) return 0;
  // Layers past the model's last are MoE layers with neither embedding nor head: the draft's layers alone.
  const WeightBytes layers =
      weight_bytes_per_rank(model, layout, PipelineStage{0, model.num_layers, draft.layers, false, false});
  std::uint64_t bytes = layers.total();
  const auto hidden = static_cast<std::uint64_t>(model.hidden_size);
  if (draft.dense_intermediate > 0) {
    bytes -= layers[Component::routed_experts] + layers[Component::shared_experts] + layers[Component::router];
    const auto width = static_cast<std::uint64_t>(draft.dense_intermediate / layout.dense_tp_size());
    bytes += static_cast<std::uint64_t>(draft.layers) * 3 * hidden * width * 2;
  }
  return bytes + static_cast<std::uint64_t>(draft.fusion_inputs) * hidden * hidden * 2;
}

Overheads estimate_overheads(const Model& model, const Layout& layout, const MemorySettings& settings) {
  Overheads overheads;
  overheads.activation = settings.activation_bytes.value_or(activation_workspace(model, layout, settings));
  // [sglang-server-args]: SGLang reserves 2 MiB per captured decode batch size.
  overheads.cuda_graph = settings.cuda_graph_bytes.value_or(2 * kMiB * static_cast<std::uint64_t>(settings.max_batch));
  overheads.communication = settings.communication_bytes.value_or(communication_buffers(model, layout, settings));
  return overheads;
}

namespace {

// The KV cache of the stage's layers: the whole model's, in proportion to the layers the stage holds.
KvCacheShape stage_kv_cache(const KvCacheShape& whole, const Model& model, const PipelineStage& stage) {
  KvCacheShape shape = whole;
  const auto layers = static_cast<std::uint64_t>(stage.layers);
  const auto all_layers = static_cast<std::uint64_t>(model.num_layers);
  shape.bytes_per_token = whole.bytes_per_token * layers / all_layers;
  shape.bytes_per_sequence = whole.bytes_per_sequence * layers / all_layers;
  shape.linear_state_bytes = whole.linear_state_bytes * layers / all_layers;
  return shape;
}

// Whether `candidate` binds the engine's KV pool before `binding` does.
bool binds_before(const MemoryPlan& candidate, const MemoryPlan& binding) {
  if (candidate.fits != binding.fits) return !candidate.fits;
  return candidate.max_kv_tokens < binding.max_kv_tokens;
}

// The cache of `plan.kv_cache_bytes` in whole blocks of `block` tokens, and the sequences of context_length it holds.
void size_kv_cache(MemoryPlan& plan, std::int64_t block_tokens, std::int64_t context_length) {
  const auto block = static_cast<std::uint64_t>(block_tokens);
  plan.block_tokens = block_tokens;
  plan.max_kv_tokens = static_cast<std::int64_t>(plan.kv_cache_bytes / (plan.kv.bytes_per_token * block) * block);
  const std::uint64_t per_sequence =
      plan.kv.bytes_per_token * static_cast<std::uint64_t>(divide_rounding_up(context_length, block_tokens)) * block +
      plan.kv.bytes_per_sequence;
  plan.max_sequences = static_cast<std::int64_t>(plan.kv_cache_bytes / per_sequence);
}

// Under the engine's own accounting: the weights as it loads them, what it sets aside at start-up, and whether
// it starts.
void apply_engine_start(MemoryPlan& plan, const Model& loaded, const Hardware& hardware, const MemorySettings& settings,
                        std::int64_t context_length) {
  const EngineStart start =
      engine_start(loaded, plan.layout, hardware, settings.engine, plan.weights.total(), context_length);
  plan.device_bytes = start.device_bytes;
  plan.overheads = start.overheads;
  plan.kv_cache_bytes = start.kv_bytes > 0 ? static_cast<std::uint64_t>(start.kv_bytes) : 0;
  // What the engine accounts for: its budget under vLLM; under SGLang and TensorRT-LLM also the terms the fraction
  // leaves outside, so that the parts add up to it.
  plan.usable_bytes =
      start.kv_bytes > 0 ? plan.weights.total() + plan.overheads.total() + plan.kv_cache_bytes : start.budget_bytes;
  size_kv_cache(plan, start.block_tokens, context_length);
  plan.refusal = start_refusal(settings.engine, start, plan.max_kv_tokens, context_length);
  plan.fits = plan.refusal.empty();
  plan.engine_max_sequences = engine_max_sequences(settings.engine, hardware, plan.max_kv_tokens, context_length);
}

MemoryPlan plan_stage_memory(const Model& served, const Layout& layout, const PipelineStage& stage,
                             const Hardware& hardware, const MemorySettings& settings, std::int64_t context_length,
                             const DraftShape& draft) {
  const Model model = loaded_model(served, hardware, settings.engine);
  MemoryPlan plan;
  plan.layout = layout;
  plan.pipeline_stage = stage.index;
  plan.device_bytes = hardware.memory_bytes;
  plan.usable_bytes = static_cast<std::uint64_t>(static_cast<double>(hardware.memory_bytes) * settings.utilization);
  plan.weights = weight_bytes_per_rank(model, layout, stage);
  plan.overheads = estimate_overheads(model, layout, settings);
  plan.context_length = context_length;
  const DType kv_dtype = settings.kv_cache_dtype.value_or(model.kv_cache_dtype);
  const KvCacheShape whole = kv_cache_per_rank(model, layout, kv_dtype, context_length);
  plan.kv = stage_kv_cache(whole, model, stage);
  if (stage.last && draft.present()) {
    // The draft's layers keep their own cache of every token, in the model's attention shape.
    plan.weights.draft = draft_weight_bytes(model, layout, draft);
    plan.kv.bytes_per_token += stage_kv_cache(whole, model, {0, 0, draft.layers, false, true}).bytes_per_token;
  }
  if (settings.engine.engine != MemoryEngine::generic) {
    apply_engine_start(plan, model, hardware, settings, context_length);
    return plan;
  }
  const std::uint64_t committed = plan.weights.total() + plan.overheads.total();
  plan.fits = committed < plan.usable_bytes;
  if (!plan.fits) return plan;
  plan.kv_cache_bytes = plan.usable_bytes - committed;
  // The cache is allocated in whole blocks of kv_block_tokens, and each sequence holds whole blocks.
  size_kv_cache(plan, settings.kv_block_tokens, context_length);
  return plan;
}

}  // namespace

MemoryPlan plan_memory(const Model& model, const Layout& layout, const Hardware& hardware,
                       const MemorySettings& settings, std::int64_t context_length, const DraftShape& draft) {
  std::optional<MemoryPlan> binding;
  for (const PipelineStage& stage : pipeline_stages(model, layout)) {
    const MemoryPlan plan = plan_stage_memory(model, layout, stage, hardware, settings, context_length, draft);
    if (!binding || binds_before(plan, *binding)) binding = plan;
  }
  return *binding;
}

StateCache reserve_state_cache(const MemoryPlan& plan, std::int64_t max_batch, std::int64_t block_tokens) {
  const std::uint64_t fixed = plan.kv.bytes_per_sequence;
  if (fixed == 0 || !plan.fits) return {max_batch, plan.max_kv_tokens};
  const std::uint64_t block = plan.kv.bytes_per_token * static_cast<std::uint64_t>(block_tokens);
  StateCache cache;
  cache.slots = std::min<std::int64_t>(max_batch, static_cast<std::int64_t>(plan.kv_cache_bytes / (fixed + block)));
  const std::uint64_t left = plan.kv_cache_bytes - static_cast<std::uint64_t>(cache.slots) * fixed;
  cache.kv_tokens = static_cast<std::int64_t>(left / block) * block_tokens;
  return cache;
}

nlohmann::json memory_json(const MemoryPlan& plan) {
  nlohmann::json weights = nlohmann::json::object();
  for (const Component component : kAllComponents) weights[component_name(component)] = plan.weights[component];
  if (plan.weights.draft > 0) weights["draft"] = plan.weights.draft;
  return {{"layout", layout_json(plan.layout)},
          {"per_rank_bytes",
           {{"weights", weights},
            {"weights_total", plan.weights.total()},
            {"kv_cache", plan.kv_cache_bytes},
            {"overheads",
             {{"activation", plan.overheads.activation},
              {"cuda_graph", plan.overheads.cuda_graph},
              {"communication", plan.overheads.communication}}},
            {"total", plan.total()}}},
          {"device_bytes", plan.device_bytes},
          {"usable_bytes", plan.usable_bytes},
          {"fits", plan.fits},
          {"pipeline_stage", plan.pipeline_stage},
          {"kv_bytes_per_token", plan.kv.bytes_per_token},
          {"kv_bytes_per_sequence_fixed", plan.kv.bytes_per_sequence},
          {"max_kv_tokens", plan.max_kv_tokens},
          {"context_length", plan.context_length},
          {"max_sequences", plan.max_sequences},
          {"kv_block_tokens", plan.block_tokens},
          {"engine_max_sequences", plan.engine_max_sequences},
          {"refusal", plan.refusal}};
}

}  // namespace moeplan
