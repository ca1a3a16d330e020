#pragma once
// Decode and prefill step time of one layout, as a breakdown the search ranks and --explain prints.
// Built once per (model, hardware, calibration); every evaluation after that is allocation-free.
#include <vector>

#include "cost/collectives.hpp"
#include "cost/compute.hpp"
#include "cost/moe_dispatch.hpp"
#include "cost/otp.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"
#include "spec/speculative.hpp"
#include "spec/weight_tensors.hpp"

namespace moeplan {

struct StepOptions {
  DispatchMode dispatch = DispatchMode::all_to_all;
  double max_over_mean = 1.0;          // EP load: busiest rank's expert rows over the mean (from eplb or a skew model)
  double cross_node_share = -1;        // share of dispatched rows crossing nodes; < 0: uniform placement
  bool two_batch_overlap = false;      // [doc-003]: two micro-batches, one's communication under the other's compute
  bool overlap_shared_expert = false;  // unfused shared expert runs while dispatch/combine is in flight
  double weight_prefetch_bytes = 0;    // [doc-004] feature 2: w13 bytes prefetched during attention; 0 = off
  std::int64_t micro_batches = 0;      // pipeline micro-batches a step's batch is cut into; 0 = one per stage
  std::int64_t draft_tokens = 0;       // speculative decoding: k tokens drafted per sequence and verified; 0 = off
  DraftShape draft;                    // the draft that proposes them
};

// Whether a layout's experts meet their tokens through collectives (an all-reduce of partial sums when the
// tokens are on every rank, or all-gather / reduce-scatter) rather than an all-to-all dispatch: true for
// gather_scatter and for EP 1, whatever the mode.
bool exchanges_by_collectives(const Layout& layout, DispatchMode dispatch);

// Seconds per step, summed over layers. total = the components - overlap_saved + the pipeline and draft parts.
struct StepBreakdown {
  double attention = 0;         // QKV/O projections and the attention core
  double moe_compute = 0;       // router, grouped expert GEMMs, the shared expert
  double dispatch_combine = 0;  // MoE token exchange (or its all-reduce under gather/scatter)
  double otp_comm = 0;          // [doc-004] O/QKV split collectives and reorders
  double tp_comm = 0;           // attention-TP and dense-TP collectives
  double other = 0;             // dense FFN layers, norms and residuals, embedding, LM head
  double overlap_saved = 0;     // hidden by two-batch overlap, shared-expert overlap and weight prefetch
  double total = 0;
  double routed_experts = 0;  // of moe_compute, the grouped GEMMs of the EP slots (routed and fused shared)
  // Parts of total beside the components above, declared last so positional initialisers keep their order:
  double pipeline_bubble = 0;    // pp > 1: the slowest stage's idle slots while the pipeline fills and drains
  double pipeline_transfer = 0;  // pp > 1: the activations sent from stage to stage
  double draft = 0;              // speculative decoding: the draft's k passes before the verifying step
};

struct DecodeInput {
  double batch = 1;    // sequences per attention DP rank
  double context = 0;  // cached tokens each sequence attends to
};

struct PrefillInput {
  double tokens = 0;           // new tokens per attention DP rank in one step (the token budget)
  double sequence_length = 0;  // new tokens per sequence
  double prefix = 0;           // cached tokens before them (prefix cache, chunked prefill)
};

// The OTP scheme choice for each split projection of a layout at one batch.
struct OtpDecision {
  const char* matrix = "";  // "o_proj", "qkv"
  OtpChoice choice;
};

class StepModel {
 public:
  StepModel(const Model& model, const Hardware& hardware, const Efficiency& efficiency = {},
            const DispatchConstants& dispatch = {});
  StepModel(const Model& model, const CollectiveModel& collectives, const Efficiency& efficiency,
            const DispatchConstants& dispatch = {});

  StepBreakdown decode(const Layout& layout, const DecodeInput& input, const StepOptions& options) const;
  StepBreakdown prefill(const Layout& layout, const PrefillInput& input, const StepOptions& options) const;

  // Which scheme each OTP/QKV-TP projection takes at `tokens` per DP rank, with the volume rule beside it.
  std::vector<OtpDecision> otp_decisions(const Layout& layout, double tokens) const;

  bool calibrated() const { return compute_.efficiency().calibrated || collectives_.calibrated(); }
  const ComputeModel& compute() const { return compute_; }
  const CollectiveModel& collectives() const { return collectives_; }

 private:
  struct Pass;
  struct LayerCost;
  LayerCost attention_layer(const Layout& layout, const Pass& pass) const;
  LayerCost moe_layer(const Layout& layout, const Pass& pass, const StepOptions& options, double attention) const;
  ExpertLoad expert_load(const Layout& layout, double global_tokens, const StepOptions& options) const;
  double shared_expert_time(const Layout& layout, double tokens) const;
  double moe_communication(const Layout& layout, double global_tokens, const ExpertLoad& load,
                           const StepOptions& options) const;
  LayerCost dense_layer(const Layout& layout, const Pass& pass) const;
  LayerCost swiglu_layer(const Layout& layout, const Pass& pass, std::int64_t intermediate, DType dtype) const;
  double draft_pass(const Layout& layout, const Pass& pass, const StepOptions& options) const;
  LayerCost embedding(const Layout& layout, const Pass& pass) const;
  LayerCost lm_head(const Layout& layout, const Pass& pass) const;
  double attention_core(const Layout& layout, const Pass& pass) const;
  double softmax_attention_core(const Layout& layout, const Pass& pass) const;
  double sparse_indexer_core(const Pass& pass) const;
  double linear_attention_core(const Layout& layout, const Pass& pass) const;
  double layer_share(LayerScope scope) const;
  double dense_tp_comm(const Layout& layout, double tokens) const;
  StepBreakdown run(const Layout& layout, const Pass& pass, const StepOptions& options) const;
  StepBreakdown run_stage(const Layout& layout, const Pass& pass, const StepOptions& options,
                          const PipelineStage& stage) const;
  StepBreakdown pipeline(const Layout& layout, const Pass& pass, const StepOptions& options) const;
  double stage_transfer(const Layout& layout, double tokens) const;
  StepBreakdown sum_layers(const Layout& layout, const Pass& pass, const StepOptions& options,
                           const PipelineStage& stage) const;
  Group group(std::int64_t ranks, std::int64_t stride = 1) const;  // contiguous_group on this hardware's nodes

  Model model_;
  CollectiveModel collectives_;
  ComputeModel compute_;
  DispatchConstants dispatch_;
  std::vector<WeightTensor> attention_matrices_;  // every-layer attention weights with two real dimensions
  std::vector<OtpProjection> qkv_projections_;    // head-split projections, one per input width ([doc-004] QKV)
  OtpProjection o_projection_;
};

}  // namespace moeplan
