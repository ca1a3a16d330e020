#include "predict/run_costs.hpp"

#include <algorithm>

#include "cost/kv_cache.hpp"
#include "plan/load_skew.hpp"
#include "plan/serving_loop.hpp"
#include "spec/speculative.hpp"

namespace moeplan::predict {

namespace {

// A plan's run keeps the plan's dispatch and two-batch overlap. A measured row records no all-to-all backend,
// so its experts exchange tokens as the engines do by default:
// SGLang's --moe-a2a-backend none [sglang-server-args] and vLLM's allgather_reducescatter
// [vllm-parallel-config] all-reduce the experts' partial sums where attention is tensor-parallel (the tokens
// are on every rank already) and all-gather / reduce-scatter them across attention-DP ranks. TensorRT-LLM's
// rows are priced the same way, an assumption: its default MoE path is not read here.
StepOptions options_at(const MeasuredRun& run, const Model& model, const Layout& layout, double tokens_per_rank) {
  StepOptions options;
  options.dispatch = run.dispatch.value_or(DispatchMode::gather_scatter);
  options.two_batch_overlap = run.two_batch_overlap;
  options.max_over_mean = max_over_mean(model, layout, tokens_per_rank, SkewModel{});
  return options;
}

// The run's speculative decoding as plan-deploy prices it (plan/serving.cpp): the model's MTP layers draft
// k tokens, the step verifies 1 + k, and each step yields 1 + the accepted tokens.
Speculative run_speculative(const MeasuredRun& run) {
  Speculative speculative;
  speculative.method = SpeculativeMethod::mtp;
  speculative.draft_tokens = run.draft_tokens;
  if (run.acceptance > 0) speculative.acceptance = run.acceptance;
  speculative.measured_accepted_tokens = run.accepted_tokens;
  return speculative;
}

std::string cache_key(const Deployment& deployment) {
  const WeightFormats& w = deployment.model.weights;
  return deployment.model.hf_id + "|" + deployment.model.name + "|" + deployment.hardware_preset + "|" +
         dtype_name(w.attention) + dtype_name(w.dense_ffn) + dtype_name(w.experts) + dtype_name(w.shared_experts);
}

}  // namespace

void StepModelCache::set_ceilings(const std::string& preset, PresetCeilings ceilings) {
  ceilings_.insert_or_assign(preset, std::move(ceilings));
  models_.clear();
}

std::vector<std::string> StepModelCache::ceiling_names() const {
  std::vector<std::string> names;
  for (const auto& [preset, ceilings] : ceilings_) names.push_back(ceilings.name);
  return names;
}

const StepModel& StepModelCache::get(const Deployment& deployment) {
  std::unique_ptr<StepModel>& slot = models_[cache_key(deployment)];
  if (slot) return *slot;
  const auto measured = ceilings_.find(deployment.hardware_preset);
  if (measured == ceilings_.end()) {
    slot = std::make_unique<StepModel>(deployment.model, deployment.hardware, roofline_efficiency());
  } else {
    slot = std::make_unique<StepModel>(deployment.model, measured->second.collectives, measured->second.efficiency);
  }
  return *slot;
}

double decode_batch_per_rank(const MeasuredRun& run) {
  const WorkerShape& shape = run.disaggregated ? run.decode : run.worker;
  if (shape.batch > 0) return static_cast<double>(shape.batch);
  const double ranks = static_cast<double>(shape.attention_dp * std::max<std::int64_t>(1, shape.workers));
  return std::max(1.0, static_cast<double>(run.concurrency) / ranks);
}

RunCosts run_costs(const MeasuredRun& run, const Deployment& deployment, const StepModel& steps) {
  RunCosts costs;
  costs.disaggregated = run.disaggregated;
  costs.decode_batch = decode_batch_per_rank(run);
  const double context = static_cast<double>(run.input_tokens) + static_cast<double>(run.output_tokens) / 2.0;
  const Layout& decode = deployment.worker;
  StepOptions decode_options = options_at(run, deployment.model, decode, costs.decode_batch);
  if (run.draft_tokens > 0) {
    const Speculative speculative = run_speculative(run);
    decode_options.draft_tokens = speculative.draft_tokens;
    decode_options.draft = speculative.draft(deployment.model);
    costs.tokens_per_step = 1.0 + speculative.accepted_tokens();
  }
  const StepBreakdown decode_step = steps.decode(decode, {costs.decode_batch, context}, decode_options);
  costs.decode = family_times(decode_step, decode, decode_options.dispatch);
  costs.decode.other += decode_step.draft;  // the draft's passes: layers, LM head and fusion, priced as the rest
  const Layout& prefill = deployment.prefill;
  const double prompt = static_cast<double>(run.input_tokens);
  const StepOptions prefill_options = options_at(run, deployment.model, prefill, prompt);
  costs.prefill =
      family_times(steps.prefill(prefill, {prompt, prompt, 0.0}, prefill_options), prefill, prefill_options.dispatch);
  const WorkerShape& prefill_shape = run.disaggregated ? run.prefill : run.worker;
  costs.prefill_ranks =
      static_cast<double>(prefill_shape.attention_dp * std::max<std::int64_t>(1, prefill_shape.workers));
  if (run.disaggregated) {
    costs.kv_transfer = prompt_kv_transfer_seconds(deployment.model, deployment.prefill, deployment.hardware,
                                                   deployment.model.kv_cache_dtype, run.input_tokens);
  }
  costs.lockstep_ranks = lockstep_ranks(deployment.model.has_moe(), run.worker.attention_dp, run.disaggregated);
  return costs;
}

}  // namespace moeplan::predict
