#include "plan/search.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "io/cancellation.hpp"
#include "io/input_error.hpp"
#include "plan/disaggregation.hpp"
#include "plan/layout_space.hpp"
#include "spec/engine_rules.hpp"

namespace moeplan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string memory_detail(const MemoryPlan& memory) {
  if (!memory.refusal.empty()) return memory.refusal;
  return fmt::format("weights {:.2f} GiB + overheads {:.2f} GiB exceed the usable {:.2f} GiB",
                     static_cast<double>(memory.weights.total()) / kGiB,
                     static_cast<double>(memory.overheads.total()) / kGiB,
                     static_cast<double>(memory.usable_bytes) / kGiB);
}

// The role's figure of merit: prefill pools are judged by input tokens, the others by output tokens.
double merit(const ServingEstimate& estimate) {
  return estimate.options.role == Role::prefill ? estimate.input_tokens_per_gpu : estimate.output_tokens_per_gpu;
}

void sort_by_merit(std::vector<Candidate>& candidates) {
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& left, const Candidate& right) {
    return merit(left.serving) > merit(right.serving);
  });
}

// A candidate is on the front when no other serves more per GPU and more per user.
void mark_pareto(std::vector<Candidate>& candidates) {
  double best_per_user = -1;
  for (Candidate& candidate : candidates) {  // sorted by throughput per GPU, best first
    candidate.pareto = candidate.serving.tokens_per_user > best_per_user;
    best_per_user = std::max(best_per_user, candidate.serving.tokens_per_user);
  }
}

void keep(Evaluation evaluation, std::vector<Candidate>& kept, SearchResult& result) {
  if (evaluation.candidate) {
    kept.push_back(std::move(*evaluation.candidate));
    return;
  }
  ++result.rejected_by_reason[evaluation.rejection->reason];
  result.rejections.push_back(std::move(*evaluation.rejection));
}

}  // namespace

std::vector<RoleOptions> role_options(const Layout& layout, Role role, const SearchSpace& search,
                                      const EngineChoice& engine) {
  if (layout.ep == 1) return {{role, DispatchMode::gather_scatter, false}};
  std::vector<DispatchMode> modes{DispatchMode::all_to_all};
  // [sglang-server-args]: DeepEP-class backends force EP = the instance's ranks. [doc-003]: without
  // PD disaggregation one communication group cannot mix normal and low-latency dispatch.
  if (layout.ep == layout.world()) {
    modes.push_back(role == Role::decode ? DispatchMode::deepep_low_latency : DispatchMode::deepep_normal);
  }
  // spec/engine_rules.hpp: a mechanism pair the scenario's engine release cannot run (two-batch overlap
  // without DeepEP, fused shared experts with it) is never chosen; a mode left without an allowed
  // overlap setting runs without overlap. Redundant experts are the layout's, judged at export.
  const bool sglang = follows_sglang_rules(engine.engine);
  const EngineVersion version = engine.release.value_or(kMainBranch);
  std::vector<RoleOptions> options;
  for (const DispatchMode mode : modes) {
    const std::size_t before = options.size();
    for (const bool overlap : search.two_batch_overlap) {
      const MechanismChoice choice{mode != DispatchMode::all_to_all, overlap, layout.fused_shared, 0};
      if (!sglang || !sglang_combination_problem(version, choice)) options.push_back({role, mode, overlap});
    }
    if (options.size() == before) options.push_back({role, mode, false});
  }
  return options;
}

namespace {

// Decoding with and without the scenario's draft, as its search asks, in the roles that decode. SGLang runs
// no draft beside pipeline stages [sglang-pp], so a layout with stages decodes without one.
std::vector<bool> speculative_choices(const ServingContext& context, const Layout& layout, Role role) {
  if (!context.scenario.speculative || role == Role::prefill) return {false};
  std::vector<bool> choices;
  for (const bool speculative : context.scenario.search.speculative) {
    if (!(speculative && layout.pp > 1)) choices.push_back(speculative);
  }
  return choices;
}

}  // namespace

Evaluation evaluate_layout(const ServingContext& context, const Layout& layout, Role role) {
  const std::string role_text = role_name(role);
  try {
    validate_layout(layout, context.model, "layout");
  } catch (const InputError& error) {
    return {std::nullopt, Rejection{layout, role_text, error.key(), error.expectation()}};
  }
  std::optional<Candidate> best;
  Rejection last{layout, role_text, "layout.pp", "speculative decoding (search.speculative: on) with pipeline stages"};
  for (const bool speculative : speculative_choices(context, layout, role)) {
    const DraftShape draft = speculative ? context.scenario.speculative->draft(context.model) : DraftShape{};
    const MemoryPlan memory = plan_memory(context.model, layout, context.scenario.cluster.hardware,
                                          context.scenario.memory, context.scenario.workload.longest_request(), draft);
    if (!memory.fits) {
      last = Rejection{layout, role_text, "memory", memory_detail(memory)};
      continue;
    }
    for (RoleOptions options : role_options(layout, role, context.scenario.search, context.scenario.engine)) {
      options.speculative = speculative;
      const ServingEstimate estimate = estimate_serving(context, layout, memory, options);
      if (!estimate.rejected.empty()) {
        last = Rejection{layout, role_text, estimate.rejected, estimate.detail};
      } else if (!best || merit(estimate) > merit(best->serving)) {
        best = Candidate{layout, memory, estimate, false};
      }
    }
  }
  if (!best) return {std::nullopt, last};
  return {best, std::nullopt};
}

SearchResult search_layouts(const Model& model, const Scenario& scenario, const StepCost& steps, Reporter& reporter,
                            const ExpertLoadImbalance* measured_loads) {
  if (scenario.speculative) check_speculative(*scenario.speculative, model, scenario.file);
  SearchResult result;
  // The context the engine must admit (its --max-model-len): the longest request the workload sends.
  result.context_length = scenario.workload.longest_request();
  result.calibrated = steps.steps().calibrated();
  result.estimates = steps.steps().compute().efficiency().source;
  result.profile = steps.profile().source;
  const ServingContext context{model, scenario, steps, SkewModel{}, measured_loads};
  result.load_source = measured_loads != nullptr ? "placements solved by eplb-solve from " + measured_loads->file()
                                                 : "skew model (no expert-load log given)";
  const std::vector<Layout> layouts = enumerate_layouts(model, scenario);
  for (std::size_t index = 0; index < layouts.size(); ++index) {
    stop_if_cancelled();
    const Layout& layout = layouts[index];
    if (scenario.search.aggregated) keep(evaluate_layout(context, layout, Role::aggregated), result.aggregated, result);
    if (scenario.search.disaggregated) {
      keep(evaluate_layout(context, layout, Role::prefill), result.prefill, result);
      keep(evaluate_layout(context, layout, Role::decode), result.decode, result);
    }
    if (index % 512 == 0) reporter.progress("search", static_cast<double>(index) / static_cast<double>(layouts.size()));
  }
  reporter.progress("search", 1.0);
  const std::int64_t roles = (scenario.search.aggregated ? 1 : 0) + (scenario.search.disaggregated ? 2 : 0);
  result.evaluated = static_cast<std::int64_t>(layouts.size()) * roles;
  for (auto* pool : {&result.aggregated, &result.prefill, &result.decode}) sort_by_merit(*pool);
  mark_pareto(result.aggregated);
  mark_pareto(result.decode);
  if (scenario.search.disaggregated) result.disaggregated = pair_pools(result.prefill, result.decode, scenario);
  return result;
}

}  // namespace moeplan
