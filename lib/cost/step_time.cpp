#include "cost/step_time.hpp"

#include <algorithm>
#include <map>

#include "cost/kv_cache.hpp"

namespace moeplan {

// One forward pass as one attention DP rank sees it.
struct StepModel::Pass {
  double tokens = 0;     // new tokens per DP rank
  double sequences = 0;  // sequences per DP rank
  double length = 1;     // new tokens per sequence
  double context = 0;    // decode: cached tokens attended; prefill: cached prefix
  bool prefill = false;
};

// One layer's time by component; `saved` is what overlaps hide inside the layer.
struct StepModel::LayerCost {
  double attention = 0;
  double moe_compute = 0;
  double routed_experts = 0;  // part of moe_compute
  double dispatch_combine = 0;
  double otp_comm = 0;
  double tp_comm = 0;
  double other = 0;
  double saved = 0;

  double compute() const { return attention + moe_compute + other - saved; }
  double communication() const { return dispatch_combine + otp_comm + tp_comm; }
  void add(const LayerCost& cost, double times) {
    attention += cost.attention * times;
    moe_compute += cost.moe_compute * times;
    routed_experts += cost.routed_experts * times;
    dispatch_combine += cost.dispatch_combine * times;
    otp_comm += cost.otp_comm * times;
    tp_comm += cost.tp_comm * times;
    other += cost.other * times;
    saved += cost.saved * times;
  }
};

StepModel::StepModel(const Model& model, const Hardware& hardware, const Efficiency& efficiency,
                     const DispatchConstants& dispatch)
    : StepModel(model, CollectiveModel(hardware), efficiency, dispatch) {}

StepModel::StepModel(const Model& model, const CollectiveModel& collectives, const Efficiency& efficiency,
                     const DispatchConstants& dispatch)
    : model_(model), collectives_(collectives), compute_(collectives.hardware(), efficiency), dispatch_(dispatch) {
  std::map<std::int64_t, OtpProjection> head_split_by_input;
  for (const WeightTensor& tensor : weight_tensors(model)) {
    const bool attention = tensor.component == Component::attention_qkv || tensor.component == Component::attention_o;
    if (!attention || tensor.cols <= 1) continue;
    attention_matrices_.push_back(tensor);
    // Only softmax attention's own head-split projections take the [doc-004] OTP and QKV-TP schemes.
    if (tensor.scope != LayerScope::attention_layers || tensor.name.rfind("indexer.", 0) == 0) continue;
    if (tensor.split == Split::query_heads || tensor.split == Split::kv_heads) {
      // The QKV matrix of [doc-004]: the head-split projections reading one input, [h1 -> sum of their rows].
      OtpProjection& projection = head_split_by_input[tensor.cols];
      projection.input_width = tensor.cols;
      projection.output_width += tensor.rows;
      projection.weight = tensor.dtype;
      projection.block = model.weights.block;
    } else if (tensor.split == Split::o_input) {
      o_projection_ = {tensor.cols, tensor.rows, tensor.dtype, model.weights.block};
    }
  }
  for (const auto& [input, projection] : head_split_by_input) qkv_projections_.push_back(projection);
}

Group StepModel::group(std::int64_t ranks, std::int64_t stride) const {
  // Collectives and dispatch cross the network only past the NVLink domain (an NVL72 rack, not its tray).
  return contiguous_group(ranks, collectives_.hardware().nvlink_domain, stride);
}

std::vector<OtpDecision> StepModel::otp_decisions(const Layout& layout, double tokens) const {
  std::vector<OtpDecision> decisions;
  if (layout.qkvtp > 1) {
    for (const OtpProjection& projection : qkv_projections_) {
      decisions.push_back({"qkv", choose_otp_scheme(projection, tokens, group(layout.qkvtp), collectives_, compute_)});
    }
  }
  if (layout.otp > 1) {
    decisions.push_back(
        {"o_proj", choose_otp_scheme(o_projection_, tokens, group(layout.otp), collectives_, compute_)});
  }
  return decisions;
}

double StepModel::layer_share(LayerScope scope) const {
  return static_cast<double>(scope_layers(model_, scope)) / static_cast<double>(model_.num_layers);
}

// The attention core of one layer, averaged over the model's softmax-attention and linear-attention layers.
double StepModel::attention_core(const Layout& layout, const Pass& pass) const {
  const double softmax = layer_share(LayerScope::attention_layers) * softmax_attention_core(layout, pass);
  if (model_.linear_attention.layers == 0) return softmax;
  return softmax + layer_share(LayerScope::linear_attention_layers) * linear_attention_core(layout, pass);
}

double StepModel::softmax_attention_core(const Layout& layout, const Pass& pass) const {
  const Attention& attention = model_.attention;
  const std::int64_t heads = attention.num_heads / layout.tp;
  const auto queries = static_cast<std::int64_t>(pass.length);  // decode: 1, or 1 + k drafted tokens
  const DType kv = model_.kv_cache_dtype;
  double context = pass.context;
  if (attention.sliding_layers > 0 && attention.sliding_window > 0) {
    // Sliding-window layers attend to at most the window; average them with the full layers.
    const double sliding =
        static_cast<double>(attention.sliding_layers) / static_cast<double>(model_.attention_layers());
    context = sliding * std::min(context, static_cast<double>(attention.sliding_window)) + (1.0 - sliding) * context;
  }
  if (attention.kind == AttentionKind::mla) {
    // Sparse attention reads only the indexer's top-k keys; its indexer still scores the whole context.
    const auto topk = static_cast<double>(attention.indexer.topk);
    const double indexer = sparse_indexer_core(pass);
    if (pass.prefill) {
      return indexer + compute_.prefill_attention(pass.sequences, pass.length, context, heads,
                                                  attention.qk_nope_head_dim + attention.qk_rope_head_dim,
                                                  attention.v_head_dim, topk);
    }
    // Speculative verification: each sequence's 1 + k query tokens read its cache once, as more query heads.
    const double attended = attention.indexer.enabled() ? std::min(context, topk) : context;
    return indexer + compute_.mla_decode(pass.sequences, attended, heads * queries, attention.kv_lora_rank,
                                         attention.qk_rope_head_dim, kv);
  }
  if (pass.prefill) {
    return compute_.prefill_attention(pass.sequences, pass.length, context, heads, attention.head_dim,
                                      attention.head_dim);
  }
  const std::int64_t kv_heads = std::max<std::int64_t>(1, attention.num_kv_heads / layout.tp);
  return compute_.gqa_decode(pass.sequences, context, heads * queries, kv_heads, attention.head_dim, kv);
}

// [deepseek-v3.2-config]: the indexer is replicated on every attention-TP rank, so its heads are not split.
double StepModel::sparse_indexer_core(const Pass& pass) const {
  const SparseIndexer& indexer = model_.attention.indexer;
  if (!indexer.enabled()) return 0.0;
  // Decode: the new token scores every cached token; prefill: causal over the prefix and the new tokens.
  const double pairs = pass.sequences * (pass.prefill ? causal_pairs(pass.length, pass.context, 0) : pass.context);
  const double keys = pass.sequences * (pass.context + (pass.prefill ? pass.length : 0.0));
  return compute_.indexer_scores(pairs, keys, indexer.heads, indexer.head_dim,
                                 static_cast<double>(indexer.key_bytes()));
}

double StepModel::linear_attention_core(const Layout& layout, const Pass& pass) const {
  const LinearAttention& linear = model_.linear_attention;
  const std::int64_t heads = std::max<std::int64_t>(1, linear.value_heads / layout.tp);
  const auto share = static_cast<double>(heads) / static_cast<double>(linear.value_heads);
  const double state_bytes = share * static_cast<double>(linear_state_bytes(model_));
  const auto width =
      static_cast<std::int64_t>(share * static_cast<double>(linear.conv_channels() + 2 * linear.value_width()));
  return compute_.linear_attention(pass.sequences, pass.prefill ? pass.length : 1.0, heads, linear.key_head_dim,
                                   linear.value_head_dim, state_bytes, width);
}

StepModel::LayerCost StepModel::attention_layer(const Layout& layout, const Pass& pass) const {
  LayerCost cost;
  const double tokens = pass.tokens;
  const BlockShape block = model_.weights.block;
  for (const WeightTensor& tensor : attention_matrices_) {
    std::int64_t rows = tensor.rows;
    std::int64_t cols = tensor.cols;
    const bool own_scheme = tensor.scope == LayerScope::attention_layers && tensor.split != Split::replicated;
    if (tensor.split == Split::query_heads || tensor.split == Split::kv_heads) {
      if (layout.qkvtp > 1 && own_scheme) continue;  // priced below by its [doc-004] scheme
      rows = std::max(tensor.min_local_rows, rows / layout.tp);
    } else if (tensor.split == Split::o_input) {
      if (layout.otp > 1 && own_scheme) continue;
      cols /= layout.tp;
    }
    // A layer's average: a projection only some layers carry costs its share of them.
    cost.attention += layer_share(tensor.scope) * compute_.gemm(tokens, rows, cols, tensor.dtype, block);
  }
  const double softmax_share = layer_share(LayerScope::attention_layers);
  const auto add_split = [&](const OtpProjection& projection, std::int64_t ranks) {
    const OtpSchemeCost chosen =
        choose_otp_scheme(projection, tokens, group(ranks), collectives_, compute_).chosen_cost();
    cost.attention += softmax_share * chosen.matmul;
    cost.otp_comm += softmax_share * chosen.communication();
  };
  if (layout.qkvtp > 1) {
    for (const OtpProjection& projection : qkv_projections_) add_split(projection, layout.qkvtp);
  }
  if (layout.otp > 1) add_split(o_projection_, layout.otp);
  cost.attention += attention_core(layout, pass);
  const double hidden_bytes = tokens * static_cast<double>(model_.hidden_size) * kActivationBytes;
  // Attention TP: the row-split O projection ends in an all-reduce of the hidden states.
  cost.tp_comm += collectives_.time(Collective::all_reduce, group(layout.tp), hidden_bytes);
  // Two fused residual-add + RMSNorm passes per layer: read x and the residual, write both.
  cost.other += 2.0 * compute_.elementwise(4.0 * hidden_bytes);
  return cost;
}

double StepModel::dense_tp_comm(const Layout& layout, double tokens) const {
  const std::int64_t dense_tp = layout.dense_tp_size();
  if (dense_tp <= 1) return 0.0;
  const double group_tokens = tokens * static_cast<double>(dense_tp) / static_cast<double>(layout.tp);
  const double bytes = group_tokens * static_cast<double>(model_.hidden_size) * kActivationBytes;
  if (dense_tp == layout.tp) return collectives_.time(Collective::all_reduce, group(dense_tp), bytes);
  // [doc-003]: a dense-TP group other than attention's gathers its tokens before and reduce-scatters after.
  return collectives_.time(Collective::all_gather, group(dense_tp), bytes) +
         collectives_.time(Collective::reduce_scatter, group(dense_tp), bytes);
}

StepModel::LayerCost StepModel::swiglu_layer(const Layout& layout, const Pass& pass, std::int64_t intermediate,
                                             DType dtype) const {
  LayerCost cost;
  const std::int64_t dense_tp = layout.dense_tp_size();
  const double tokens = pass.tokens * static_cast<double>(dense_tp) / static_cast<double>(layout.tp);
  const std::int64_t inter = intermediate / dense_tp;
  const BlockShape block = model_.weights.block;
  cost.other += compute_.gemm(tokens, 2 * inter, model_.hidden_size, dtype, block) +
                compute_.elementwise(tokens * 3.0 * static_cast<double>(inter) * kActivationBytes) +
                compute_.gemm(tokens, model_.hidden_size, inter, dtype, block);
  cost.tp_comm += dense_tp_comm(layout, pass.tokens);
  return cost;
}

StepModel::LayerCost StepModel::dense_layer(const Layout& layout, const Pass& pass) const {
  return swiglu_layer(layout, pass, model_.dense_intermediate_size, model_.weights.dense_ffn);
}

ExpertLoad StepModel::expert_load(const Layout& layout, double global_tokens, const StepOptions& options) const {
  const Moe& moe = model_.moe;
  const auto ep = static_cast<double>(layout.ep);
  // Busiest EP rank: its share of the routed rows times the placement's max/mean, plus an even share of the
  // fused shared expert, which every token selects once among the ep x fused_shared replicas [doc-000].
  const double imbalance = layout.ep > 1 ? options.max_over_mean : 1.0;
  ExpertLoad load;
  load.pairs = global_tokens * static_cast<double>(moe.experts_per_token) / ep * imbalance;
  load.tokens = global_tokens;
  // [doc-002]: num_local_experts = (num_experts + redundant) / ep routed slots + the fused shared slots.
  load.experts = static_cast<double>(layout.physical_experts(model_)) / ep;
  load.shared_pairs = layout.fused_shared > 0 ? global_tokens / ep : 0.0;
  load.shared_experts = static_cast<double>(layout.fused_shared);
  load.hidden = model_.hidden_size;
  load.intermediate = moe.intermediate_size / layout.moe_tp();
  load.dtype = model_.weights.experts;
  load.block = model_.weights.block;
  return load;
}

double StepModel::shared_expert_time(const Layout& layout, double tokens) const {
  const Moe& moe = model_.moe;
  if (moe.shared_experts == 0 || layout.fused_shared > 0) return 0.0;
  // Unfused shared expert: a dense SwiGLU over the dense-TP group's tokens (the unfused path of [doc-000]).
  const std::int64_t dense_tp = layout.dense_tp_size();
  const double group_tokens = tokens * static_cast<double>(dense_tp) / static_cast<double>(layout.tp);
  const std::int64_t inter = moe.shared_intermediate_size * moe.shared_experts / dense_tp;
  const std::int64_t hidden = model_.hidden_size;
  const DType dtype = model_.weights.shared_experts;
  return compute_.gemm(group_tokens, 2 * inter, hidden, dtype, model_.weights.block) +
         compute_.elementwise(group_tokens * 3.0 * static_cast<double>(inter) * kActivationBytes) +
         compute_.gemm(group_tokens, hidden, inter, dtype, model_.weights.block);
}

bool exchanges_by_collectives(const Layout& layout, DispatchMode dispatch) {
  return dispatch == DispatchMode::gather_scatter || layout.ep == 1;
}

double StepModel::moe_communication(const Layout& layout, double global_tokens, const ExpertLoad& load,
                                    const StepOptions& options) const {
  const std::int64_t hidden = model_.hidden_size;
  const std::int64_t world = layout.world();
  if (exchanges_by_collectives(layout, options.dispatch)) {
    // Tokens already on every rank (dp = 1): the expert partial sums meet in one all-reduce.
    const double token_bytes = global_tokens * static_cast<double>(hidden) * kActivationBytes;
    if (layout.dp == 1) return collectives_.time(Collective::all_reduce, group(world), token_bytes);
    const DispatchInput input{DispatchMode::gather_scatter, group(world), global_tokens / static_cast<double>(world),
                              model_.moe.experts_per_token, hidden};
    return dispatch_times(input, collectives_, dispatch_).total();
  }
  const DispatchInput input{options.dispatch,
                            group(layout.ep, layout.moe_tp()),
                            global_tokens / static_cast<double>(layout.ep),
                            model_.moe.experts_per_token + (layout.fused_shared > 0 ? 1 : 0),
                            hidden,
                            layout.ep > 1 ? options.max_over_mean : 1.0,
                            options.cross_node_share};
  // Expert TP inside an EP member: the partial rows it produced meet in an all-reduce.
  return dispatch_times(input, collectives_, dispatch_).total() +
         collectives_.time(Collective::all_reduce, group(layout.moe_tp()),
                           load.rows() * static_cast<double>(hidden) * kActivationBytes);
}

StepModel::LayerCost StepModel::moe_layer(const Layout& layout, const Pass& pass, const StepOptions& options,
                                          double attention) const {
  LayerCost cost;
  const double global_tokens = pass.tokens * static_cast<double>(layout.dp);
  cost.moe_compute += compute_.routing(pass.tokens, model_.hidden_size, model_.moe.num_experts, model_.weights.router);
  const ExpertLoad load = expert_load(layout, global_tokens, options);
  const ExpertTimes experts = compute_.experts(load);
  cost.moe_compute += experts.total();
  cost.routed_experts += experts.total();
  if (options.weight_prefetch_bytes > 0) {
    // [doc-004] feature 2: w13 prefetched while attention runs; the saving cannot exceed the attention time.
    const double prefetched = std::min(options.weight_prefetch_bytes, compute_.expert_weight_bytes(load));
    cost.saved += std::min(attention, experts.gate_up - compute_.experts(load, prefetched).gate_up);
  }
  const double shared = shared_expert_time(layout, pass.tokens);
  cost.moe_compute += shared;
  if (shared > 0 && layout.dense_tp_size() != layout.tp) cost.tp_comm += dense_tp_comm(layout, pass.tokens);
  cost.dispatch_combine += moe_communication(layout, global_tokens, load, options);
  if (options.overlap_shared_expert) cost.saved += std::min(shared, cost.dispatch_combine);
  return cost;
}

StepModel::LayerCost StepModel::embedding(const Layout& layout, const Pass& pass) const {
  LayerCost cost;
  const std::int64_t head_tp = layout.lm_head_tp_size();
  const double share = static_cast<double>(head_tp) / static_cast<double>(layout.tp);
  const double hidden_bytes = pass.tokens * share * static_cast<double>(model_.hidden_size) * kActivationBytes;
  // Embedding lookup (a gather) and, vocabulary-parallel, the all-reduce that assembles its rows.
  cost.other += compute_.elementwise(2.0 * hidden_bytes);
  cost.tp_comm += collectives_.time(Collective::all_reduce, group(head_tp), hidden_bytes);
  return cost;
}

StepModel::LayerCost StepModel::lm_head(const Layout& layout, const Pass& pass) const {
  LayerCost cost;
  const std::int64_t head_tp = layout.lm_head_tp_size();
  const double share = static_cast<double>(head_tp) / static_cast<double>(layout.tp);
  const auto vocab = static_cast<double>(model_.vocab_size);
  // LM head on the last token of each sequence (on all 1 + k when verifying drafted tokens); vocabulary-parallel
  // logits are all-gathered.
  const double rows = (pass.prefill ? pass.sequences : pass.tokens) * share;
  cost.other += compute_.gemm(rows, model_.vocab_size / head_tp, model_.hidden_size, model_.weights.lm_head,
                              model_.weights.block);
  cost.tp_comm += collectives_.time(Collective::all_gather, group(head_tp), rows * vocab * kActivationBytes);
  return cost;
}

StepBreakdown StepModel::sum_layers(const Layout& layout, const Pass& pass, const StepOptions& options,
                                    const PipelineStage& stage) const {
  const LayerCost attention = attention_layer(layout, pass);
  // A dense model has no MoE layer to price (its expert shapes are all zero).
  LayerCost moe_layer_cost = model_.has_moe() ? moe_layer(layout, pass, options, attention.attention) : LayerCost{};
  moe_layer_cost.add(attention, 1.0);
  LayerCost dense_layer_cost = dense_layer(layout, pass);
  dense_layer_cost.add(attention, 1.0);

  const auto moe_layers = static_cast<double>(model_.moe_layers_in(stage.first_layer, stage.layers));
  const auto dense_layers = static_cast<double>(stage.layers) - moe_layers;
  const double copies = options.two_batch_overlap ? 2.0 : 1.0;
  LayerCost all;
  all.add(moe_layer_cost, moe_layers * copies);
  all.add(dense_layer_cost, dense_layers * copies);
  if (stage.first) all.add(embedding(layout, pass), copies);
  if (stage.last) all.add(lm_head(layout, pass), copies);

  double overlapped = 0;
  if (options.two_batch_overlap) {
    // [doc-003] TBO: across the layers one micro-batch computes while the other communicates, so a layer costs
    // max(compute, communication) of both micro-batches; the first stage of the first layer cannot overlap.
    const auto hidden_by_overlap = [](const LayerCost& layer) {
      const double compute = 2.0 * layer.compute();
      const double communication = 2.0 * layer.communication();
      return compute + communication - std::max(compute, communication);
    };
    const LayerCost& first = !model_.is_moe_layer(stage.first_layer) ? dense_layer_cost : moe_layer_cost;
    overlapped = moe_layers * hidden_by_overlap(moe_layer_cost) + dense_layers * hidden_by_overlap(dense_layer_cost) -
                 std::min(first.compute(), first.communication());
  }
  StepBreakdown step;
  step.attention = all.attention;
  step.moe_compute = all.moe_compute;
  step.routed_experts = all.routed_experts;
  step.dispatch_combine = all.dispatch_combine;
  step.otp_comm = all.otp_comm;
  step.tp_comm = all.tp_comm;
  step.other = all.other;
  step.overlap_saved = all.saved + std::max(0.0, overlapped);
  step.total = step.attention + step.moe_compute + step.dispatch_combine + step.otp_comm + step.tp_comm + step.other -
               step.overlap_saved;
  return step;
}

StepBreakdown StepModel::run_stage(const Layout& layout, const Pass& pass, const StepOptions& options,
                                   const PipelineStage& stage) const {
  if (!options.two_batch_overlap) return sum_layers(layout, pass, options, stage);
  // [doc-003]: each micro-batch carries half the sequences (and half the activation memory).
  Pass half = pass;
  half.tokens /= 2.0;
  half.sequences /= 2.0;
  return sum_layers(layout, half, options, stage);
}

// Seconds to send one DP rank's `tokens` of activations across every stage boundary, in pipeline order: the
// hidden states and the residual, bf16 ([vllm-pp-indices]: IntermediateTensors {hidden_states, residual}),
// from each rank to the same rank of the next stage, over NVLink when both stages share an NVLink domain.
double StepModel::stage_transfer(const Layout& layout, double tokens) const {
  const double bytes = 2.0 * tokens * static_cast<double>(model_.hidden_size) * kActivationBytes;
  const std::int64_t domain = collectives_.hardware().nvlink_domain;
  double seconds = 0;
  for (std::int64_t boundary = 1; boundary < layout.pp; ++boundary) {
    const bool same_domain = (boundary * layout.world()) % domain != 0 && layout.world() < domain;
    seconds += collectives_.time(Collective::point_to_point, Group{2, same_domain ? 2 : 1}, bytes);
  }
  return seconds;
}

// pp stages and m micro-batches: the slowest stage runs m slots of one micro-batch each, and the pipeline
// fills and drains in pp - 1 more, so the step takes (m + pp - 1) slots plus the transfers between stages
// (GPipe's bubble, (pp - 1) / (m + pp - 1) of the step); with the slot linear in tokens this is
// (m + pp - 1) / m x the stage time of the whole batch.
StepBreakdown StepModel::pipeline(const Layout& layout, const Pass& pass, const StepOptions& options) const {
  const auto micro_batches = static_cast<double>(options.micro_batches > 0 ? options.micro_batches : layout.pp);
  Pass micro = pass;
  micro.tokens /= micro_batches;
  micro.sequences /= micro_batches;
  StepBreakdown slot;
  for (const PipelineStage& stage : pipeline_stages(model_, layout)) {
    const StepBreakdown stage_slot = run_stage(layout, micro, options, stage);
    if (stage_slot.total > slot.total) slot = stage_slot;
  }
  StepBreakdown step;
  for (auto field : {&StepBreakdown::attention, &StepBreakdown::moe_compute, &StepBreakdown::dispatch_combine,
                     &StepBreakdown::otp_comm, &StepBreakdown::tp_comm, &StepBreakdown::other,
                     &StepBreakdown::overlap_saved, &StepBreakdown::routed_experts}) {
    step.*field = slot.*field * micro_batches;
  }
  step.pipeline_bubble = static_cast<double>(layout.pp - 1) * slot.total;
  step.pipeline_transfer = stage_transfer(layout, micro.tokens);
  step.total = slot.total * micro_batches + step.pipeline_bubble + step.pipeline_transfer;
  return step;
}

StepBreakdown StepModel::run(const Layout& layout, const Pass& pass, const StepOptions& options) const {
  if (layout.pp > 1) return pipeline(layout, pass, options);
  return run_stage(layout, pass, options, PipelineStage{0, 0, model_.num_layers, true, true});
}

// One draft pass over one token per sequence: its layers (the model's attention and one of its MoE layers for
// MTP, or a bf16 SwiGLU of the draft's width for EAGLE), the bf16 fusion projection and the LM head.
double StepModel::draft_pass(const Layout& layout, const Pass& pass, const StepOptions& options) const {
  const DraftShape& draft = options.draft;
  const LayerCost attention = attention_layer(layout, pass);
  LayerCost layer = draft.dense_intermediate > 0 ? swiglu_layer(layout, pass, draft.dense_intermediate, DType::bf16)
                                                 : moe_layer(layout, pass, options, attention.attention);
  layer.add(attention, 1.0);
  LayerCost all;
  all.add(layer, static_cast<double>(draft.layers));
  all.add(lm_head(layout, pass), 1.0);
  const double fusion = compute_.gemm(pass.tokens, model_.hidden_size, draft.fusion_inputs * model_.hidden_size,
                                      DType::bf16, model_.weights.block);
  return all.compute() + all.communication() + fusion;
}

// With k drafted tokens the step verifies 1 + k tokens per sequence in one pass of the model, after the
// draft's k passes of one token each (EAGLE's chain, [sglang-speculative] topk 1).
StepBreakdown StepModel::decode(const Layout& layout, const DecodeInput& input, const StepOptions& options) const {
  const double queries = 1.0 + static_cast<double>(options.draft_tokens);
  Pass pass;
  pass.tokens = input.batch * queries;
  pass.sequences = input.batch;
  pass.length = queries;
  pass.context = input.context;
  StepBreakdown step = run(layout, pass, options);
  if (options.draft_tokens == 0 || !options.draft.present()) return step;
  Pass one_token = pass;
  one_token.tokens = input.batch;
  one_token.length = 1.0;
  step.draft = static_cast<double>(options.draft_tokens) * draft_pass(layout, one_token, options);
  step.total += step.draft;
  return step;
}

StepBreakdown StepModel::prefill(const Layout& layout, const PrefillInput& input, const StepOptions& options) const {
  Pass pass;
  pass.tokens = input.tokens;
  pass.length = std::max(1.0, input.sequence_length);
  pass.sequences = input.tokens / pass.length;
  pass.context = input.prefix;
  pass.prefill = true;
  return run(layout, pass, options);
}

}  // namespace moeplan
