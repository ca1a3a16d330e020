#include "plan/plan_json.hpp"

#include <algorithm>
#include <utility>

#include "cost/engine_memory.hpp"
#include "spec/weight_tensors.hpp"

namespace moeplan {

namespace {

// The plan file's dispatch spelling: engines only distinguish their a2a backend from none.
std::string dispatch_key(DispatchMode mode) {
  switch (mode) {
    case DispatchMode::deepep_normal: return "deepep_normal";
    case DispatchMode::deepep_low_latency: return "deepep_low_latency";
    case DispatchMode::gather_scatter:
    case DispatchMode::all_to_all: return "standard";
  }
  return "standard";
}

// [doc-004]: the scheme each split projection takes, by predicted time, beside the volume rule's choice.
nlohmann::json otp_json(const std::vector<OtpDecision>& decisions) {
  nlohmann::json schemes = nlohmann::json::array();
  for (const OtpDecision& decision : decisions) {
    const OtpChoice& choice = decision.choice;
    schemes.push_back({{"matrix", decision.matrix},
                       {"chosen", choice.chosen == OtpScheme::x1 ? "x1" : "x2"},
                       {"by_volume", choice.by_volume == OtpScheme::x1 ? "x1" : "x2"},
                       {"x1_seconds", choice.x1.total()},
                       {"x2_seconds", choice.x2.total()},
                       {"latency_overrides_volume", choice.latency_disagrees()}});
  }
  return schemes;
}

nlohmann::json model_json(const Model& model) {
  nlohmann::json json = {{"name", model.name},
                         {"file", model.file},
                         {"num_layers", model.num_layers},
                         {"dense_layers", model.dense_layers},
                         {"num_experts", model.moe.num_experts},
                         {"shared_experts", model.moe.shared_experts},
                         {"num_heads", model.attention.num_heads},
                         {"num_kv_heads", model.attention.num_kv_heads},
                         {"weight_dtype", dtype_name(model.weights.experts)}};
  // export's default --model-path; absent when the model file names no Hugging Face id.
  if (!model.hf_id.empty()) json["hf_id"] = model.hf_id;
  return json;
}

// The engine the scenario named, which export then targets; null when it names none.
nlohmann::json engine_json(const EngineChoice& engine) {
  if (engine.name.empty()) return nullptr;
  return {{"name", engine.name}, {"version", engine.version}};
}

nlohmann::json scenario_json(const Scenario& scenario) {
  return {{"name", scenario.name},
          {"file", scenario.file},
          {"gpu", scenario.cluster.hardware.name},
          {"nodes", scenario.cluster.nodes},
          {"gpus_per_node", scenario.cluster.gpus_per_node},
          {"gpu_hour_usd", scenario.cluster.hardware.gpu_hour_usd},
          {"gpu_hour_price_source", scenario.cluster.hardware.price_source},
          {"input_tokens", scenario.workload.input_tokens},
          {"output_tokens", scenario.workload.output_tokens},
          {"engine", engine_json(scenario.engine)}};
}

// The draft a decoding role runs with, or null: its method, the tokens it drafts and those accepted per step.
nlohmann::json speculative_json(const ServingEstimate& serving, const Scenario& scenario) {
  if (!serving.options.speculative || !scenario.speculative) return nullptr;
  const Speculative& speculative = *scenario.speculative;
  nlohmann::json json{{"method", speculative_method_name(speculative.method)},
                      {"draft_tokens", speculative.draft_tokens},
                      {"accepted_tokens", speculative.accepted_tokens()},
                      {"tokens_per_step", serving.tokens_per_step}};
  if (!speculative.draft_model.empty()) json["draft_model"] = speculative.draft_model;
  return json;
}

// The fractions an exported command launches the engine with: under the engine's own accounting the one its
// cache was sized with (SGLang's mem_fraction_static, vLLM's gpu_memory_utilization), else moeplan's share of
// the device and the scenario's utilization.
std::pair<double, double> launch_fractions(const MemoryPlan& memory, const Scenario& scenario) {
  const EngineMemorySettings& engine = scenario.memory.engine;
  const double used =
      static_cast<double>(memory.weights.total() + memory.kv_cache_bytes) / static_cast<double>(memory.device_bytes);
  if (engine.engine == MemoryEngine::generic) return {used, scenario.memory.utilization};
  const double fraction = engine_memory_fraction(engine, memory.layout);
  return {engine.engine == MemoryEngine::sglang ? fraction : std::min(used, fraction), fraction};
}

// One role of a plan with the engine settings it implies; `nodes` and `gpus` describe one instance,
// `role_nodes` all of the role's nodes.
nlohmann::json role_json(const Candidate& candidate, const Scenario& scenario, std::int64_t role_nodes,
                         std::int64_t context_length, DType kv_dtype) {
  const Layout& layout = candidate.layout;
  const ServingEstimate& serving = candidate.serving;
  const MemoryPlan& memory = candidate.memory;
  const std::int64_t gpus = layout.gpus();
  const std::int64_t instance_nodes = std::max<std::int64_t>(1, layout.nodes);
  const std::pair<double, double> fractions = launch_fractions(memory, scenario);
  const bool decodes = serving.options.role != Role::prefill;
  // deepep normal disables CUDA graphs [sglang-server-args]; prefill pools run without them.
  const bool graphs = decodes && serving.options.dispatch != DispatchMode::deepep_normal;
  return {{"role", role_name(serving.options.role)},
          {"nodes", instance_nodes},
          {"gpus", gpus},
          {"instances", std::max<std::int64_t>(1, role_nodes / instance_nodes)},
          {"layout", layout_json(layout)},
          {"dispatch", dispatch_key(serving.options.dispatch)},
          {"two_batch_overlap", serving.options.two_batch_overlap},
          {"speculative", speculative_json(serving, scenario)},
          {"max_running_requests", decodes ? serving.batch * layout.dp : scenario.memory.max_batch * layout.dp},
          {"max_batch_per_dp_rank", decodes ? serving.batch : scenario.memory.max_batch},
          {"chunked_prefill_tokens", scenario.memory.activation_tokens},
          {"cuda_graph_max_batch", graphs ? serving.batch : 0},
          {"graph_batch_sizes", graphs ? scenario.memory.graph_batch_sizes : std::vector<std::int64_t>{}},
          {"kv_block_tokens", memory.block_tokens},
          {"prefix_caching", scenario.memory.prefix_caching},
          {"memory_fraction_static", fractions.first},
          {"memory_utilization", fractions.second},
          {"kv_cache_dtype", dtype_name(kv_dtype)},
          {"max_context", context_length},
          {"memory", memory_json(memory)},
          {"step_time", {{"decode", step_json(serving.decode)}, {"prefill", step_json(serving.prefill)}}},
          {"batch_limit", serving.batch_limit},
          {"otp_schemes", otp_json(serving.otp_schemes)},
          {"memory_batch_per_dp_rank", serving.memory_batch},
          {"max_over_mean_load", serving.max_over_mean}};
}

nlohmann::json load_curve_json(const std::vector<LoadPoint>& curve) {
  nlohmann::json points = nlohmann::json::array();
  for (const LoadPoint& point : curve) {
    points.push_back({{"batch_per_dp_rank", point.batch},
                      {"ttft", point.ttft},
                      {"tpot", point.tpot},
                      {"throughput_per_gpu", point.output_tokens_per_gpu},
                      {"throughput_per_user", point.tokens_per_user}});
  }
  return points;
}

// The scenario's offered load spread over the plan's replicas; null when the scenario offers none.
nlohmann::json offered_load_json(const LoadFigures& load) {
  if (!load.offered) return nullptr;
  return {{"replicas", load.replicas},   {"in_flight_per_replica", load.in_flight},
          {"ttft", load.ttft},           {"tpot", load.tpot},
          {"sustained", load.sustained}, {"carries", load.carries}};
}

nlohmann::json aggregated_plan(const Candidate& candidate, const Scenario& scenario, std::int64_t context,
                               DType kv_dtype) {
  const ServingEstimate& serving = candidate.serving;
  return {{"mode", "aggregated"},
          {"layout", layout_json(candidate.layout)},
          {"throughput_per_gpu", serving.output_tokens_per_gpu},
          {"throughput_per_user", serving.tokens_per_user},
          {"ttft", serving.ttft},
          {"tpot", serving.tpot},
          {"batch_per_dp_rank", serving.batch},
          {"memory_batch_per_dp_rank", serving.memory_batch},
          {"requests_per_second_within_slo", serving.requests_per_second * static_cast<double>(serving.load.replicas)},
          {"at_offered_load", offered_load_json(serving.load)},
          {"cost_at_offered_load", token_cost_json(cost_at_offered_load(serving.load, scenario))},
          {"carries_offered_load", serving.load.carries},
          {"load_curve", load_curve_json(serving.curve)},
          {"pareto", candidate.pareto},
          {"cost", token_cost_json(cost_per_gpu(scenario.cluster.hardware.gpu_hour_usd, serving.output_tokens_per_gpu,
                                                scenario.workload))},
          {"memory", memory_json(candidate.memory)},
          {"step_time", step_json(serving.decode)},
          {"roles",
           {role_json(candidate, scenario, std::max<std::int64_t>(1, candidate.layout.nodes), context, kv_dtype)}}};
}

nlohmann::json disaggregated_plan(const DisaggregatedPlan& plan, const Scenario& scenario, std::int64_t context,
                                  DType kv_dtype) {
  const ServingEstimate& decode = plan.decode.serving;
  return {{"mode", "disaggregated"},
          {"layout", layout_json(plan.decode.layout)},
          {"throughput_per_gpu", plan.output_tokens_per_gpu},
          {"throughput_per_user", decode.tokens_per_user},
          {"ttft", plan.ttft},
          {"tpot", decode.tpot},
          {"prefill_gpus_per_decode_gpu", plan.prefill_gpus_per_decode_gpu},
          {"cost", token_cost_json(cost_per_gpu(scenario.cluster.hardware.gpu_hour_usd, plan.output_tokens_per_gpu,
                                                scenario.workload))},
          {"prefill_share", plan.prefill_share},
          {"requests_per_second_within_slo", plan.requests_per_second},
          {"carries_offered_load", plan.carries},
          {"memory", memory_json(plan.decode.memory)},
          {"step_time", step_json(decode.decode)},
          {"roles",
           {role_json(plan.prefill, scenario, plan.prefill_nodes, context, kv_dtype),
            role_json(plan.decode, scenario, plan.decode_nodes, context, kv_dtype)}}};
}

}  // namespace

nlohmann::json step_json(const StepBreakdown& step) {
  return {{"attention", step.attention},
          {"moe_compute", step.moe_compute},
          {"dispatch_combine", step.dispatch_combine},
          {"otp_comm", step.otp_comm},
          {"tp_comm", step.tp_comm},
          {"other", step.other},
          {"overlap_saved", step.overlap_saved},
          {"pipeline_bubble", step.pipeline_bubble},
          {"pipeline_transfer", step.pipeline_transfer},
          {"draft", step.draft},
          {"total", step.total}};
}

nlohmann::json token_cost_json(const TokenCost& cost) {
  const auto figure = [&](double dollars) { return cost.priced() ? nlohmann::json(dollars) : nlohmann::json(nullptr); };
  return {{"gpu_hour_usd", cost.gpu_hour_usd},
          {"per_million_input_usd", figure(cost.per_million_input)},
          {"per_million_output_usd", figure(cost.per_million_output)}};
}

nlohmann::json plan_json(const Model& model, const Scenario& scenario, const SearchResult& result, std::size_t top) {
  const DType kv_dtype = scenario.memory.kv_cache_dtype.value_or(model.kv_cache_dtype);
  nlohmann::json plans = nlohmann::json::array();
  for (std::size_t index = 0; index < std::min(top, result.disaggregated.size()); ++index) {
    plans.push_back(disaggregated_plan(result.disaggregated[index], scenario, result.context_length, kv_dtype));
  }
  for (std::size_t index = 0; index < std::min(top, result.aggregated.size()); ++index) {
    plans.push_back(aggregated_plan(result.aggregated[index], scenario, result.context_length, kv_dtype));
  }
  std::stable_sort(plans.begin(), plans.end(), [](const nlohmann::json& left, const nlohmann::json& right) {
    const bool left_carries = left["carries_offered_load"].get<bool>();
    if (left_carries != right["carries_offered_load"].get<bool>()) return left_carries;
    return left["throughput_per_gpu"].get<double>() > right["throughput_per_gpu"].get<double>();
  });
  if (plans.size() > top) plans.erase(plans.begin() + static_cast<std::ptrdiff_t>(top), plans.end());
  return {{"schema_version", 1},
          {"model", model_json(model)},
          {"scenario", scenario_json(scenario)},
          {"calibrated", result.calibrated},
          {"calibration", result.calibrated ? nlohmann::json(result.estimates) : nlohmann::json(nullptr)},
          {"estimates", result.estimates},
          {"load_model", result.load_source},
          {"evaluated", result.evaluated},
          {"plans", plans},
          {"rejected", result.rejected_by_reason}};
}

}  // namespace moeplan
