#include "plan/search.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <tuple>

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

// The role's figure of merit: prefill pools are judged by input tokens, the others by the most output tokens per
// GPU within the SLOs.
double merit(const ServingEstimate& estimate) {
  return estimate.options.role == Role::prefill ? estimate.input_tokens_per_gpu : estimate.output_tokens_per_gpu;
}

// A layout that carries the scenario's offered load ranks before one that does not; then by merit.
bool ranks_before(const ServingEstimate& left, const ServingEstimate& right) {
  if (left.load.carries != right.load.carries) return left.load.carries;
  return merit(left) > merit(right);
}

// Sorted through their indices, so each candidate moves once.
void sort_by_merit(std::vector<Candidate>& candidates) {
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t index = 0; index < order.size(); ++index) order[index] = index;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t left, std::size_t right) {
    return ranks_before(candidates[left].serving, candidates[right].serving);
  });
  std::vector<Candidate> sorted;
  sorted.reserve(candidates.size());
  for (const std::size_t index : order) sorted.push_back(std::move(candidates[index]));
  candidates = std::move(sorted);
}

// A candidate is on the front when one point of its load curve is: no point of any candidate serves more
// tokens per GPU and more per user.
void mark_pareto(std::vector<Candidate>& candidates) {
  struct Point {
    double per_gpu, per_user;
    std::size_t owner;
  };
  std::vector<Point> points;
  for (std::size_t index = 0; index < candidates.size(); ++index) {
    for (const LoadPoint& point : candidates[index].serving.curve)
      points.push_back({point.output_tokens_per_gpu, point.tokens_per_user, index});
  }
  std::sort(points.begin(), points.end(), [](const Point& left, const Point& right) {
    return left.per_gpu != right.per_gpu ? left.per_gpu > right.per_gpu : left.per_user > right.per_user;
  });
  double best_per_user = -1;
  for (const Point& point : points) {
    if (point.per_user > best_per_user) candidates[point.owner].pareto = true;
    best_per_user = std::max(best_per_user, point.per_user);
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
  const EngineVersion version = engine.release.value_or(kMainBranch);
  std::vector<RoleOptions> options;
  for (const DispatchMode mode : modes) {
    const std::size_t before = options.size();
    for (const bool overlap : search.two_batch_overlap) {
      const MechanismChoice choice{mode != DispatchMode::all_to_all, overlap, layout.fused_shared, 0,
                                   mode == DispatchMode::deepep_low_latency};
      if (!combination_problem(engine.engine, version, choice)) options.push_back({role, mode, overlap});
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

namespace {

// What every role of one layout shares, worked out once: its check against the model's rules, and its memory
// without and with the scenario's draft (each planned when a role first asks).
class LayoutChecks {
 public:
  LayoutChecks(const ServingContext& context, const Layout& layout) : context_(context), layout_(layout) {
    try {
      validate_layout(layout, context.model, "layout");
    } catch (const InputError& error) {
      invalid_ = std::make_pair(error.key(), error.expectation());
    }
  }
  const std::optional<std::pair<std::string, std::string>>& invalid() const { return invalid_; }
  const MemoryPlan& memory(bool speculative) {
    std::optional<MemoryPlan>& slot = memory_[speculative ? 1 : 0];
    if (!slot) {
      const Scenario& scenario = context_.scenario;
      const DraftShape draft = speculative ? scenario.speculative->draft(context_.model) : DraftShape{};
      slot = plan_memory(context_.model, layout_, scenario.cluster.hardware, scenario.memory,
                         scenario.workload.longest_request(), draft);
    }
    return *slot;
  }
  // The prefill of these options, priced once for the aggregated and prefill roles alike.
  const PrefillFigures& prefill(const RoleOptions& options) {
    const auto key = std::make_tuple(options.dispatch, options.two_batch_overlap, options.speculative);
    auto found = prefill_.find(key);
    if (found == prefill_.end()) found = prefill_.emplace(key, prefill_figures(context_, layout_, options)).first;
    return found->second;
  }

 private:
  const ServingContext& context_;
  const Layout& layout_;
  std::optional<std::pair<std::string, std::string>> invalid_;
  std::optional<MemoryPlan> memory_[2];
  std::map<std::tuple<DispatchMode, bool, bool>, PrefillFigures> prefill_;
};

Evaluation evaluate_checked(const ServingContext& context, const Layout& layout, Role role, LayoutChecks& checks) {
  const std::string role_text = role_name(role);
  if (checks.invalid())
    return {std::nullopt, Rejection{layout, role_text, checks.invalid()->first, checks.invalid()->second}};
  std::optional<Candidate> best;
  Rejection last{layout, role_text, "layout.pp", "speculative decoding (search.speculative: on) with pipeline stages"};
  for (const bool speculative : speculative_choices(context, layout, role)) {
    const MemoryPlan& memory = checks.memory(speculative);
    if (!memory.fits) {
      last = Rejection{layout, role_text, "memory", memory_detail(memory)};
      continue;
    }
    for (RoleOptions options : role_options(layout, role, context.scenario.search, context.scenario.engine)) {
      options.speculative = speculative;
      const PrefillFigures* prefill = role == Role::decode ? nullptr : &checks.prefill(options);
      ServingEstimate estimate = estimate_serving(context, layout, memory, options, prefill);
      if (!estimate.rejected.empty()) {
        last = Rejection{layout, role_text, estimate.rejected, estimate.detail};
      } else if (!best || ranks_before(estimate, best->serving)) {
        best = Candidate{layout, memory, std::move(estimate), false};
      }
    }
  }
  if (!best) return {std::nullopt, last};
  return {best, std::nullopt};
}

}  // namespace

Evaluation evaluate_layout(const ServingContext& context, const Layout& layout, Role role) {
  LayoutChecks checks(context, layout);
  return evaluate_checked(context, layout, role, checks);
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
    LayoutChecks checks(context, layout);
    if (scenario.search.aggregated)
      keep(evaluate_checked(context, layout, Role::aggregated, checks), result.aggregated, result);
    if (scenario.search.disaggregated) {
      keep(evaluate_checked(context, layout, Role::prefill, checks), result.prefill, result);
      keep(evaluate_checked(context, layout, Role::decode, checks), result.decode, result);
    }
    if (index % 512 == 0) reporter.progress("search", static_cast<double>(index) / static_cast<double>(layouts.size()));
  }
  reporter.progress("search", 1.0);
  const std::int64_t roles = (scenario.search.aggregated ? 1 : 0) + (scenario.search.disaggregated ? 2 : 0);
  result.evaluated = static_cast<std::int64_t>(layouts.size()) * roles;
  for (auto* pool : {&result.aggregated, &result.prefill, &result.decode}) sort_by_merit(*pool);
  mark_pareto(result.aggregated);
  mark_pareto(result.decode);
  if (scenario.search.disaggregated)
    result.disaggregated = pair_pools(model, result.prefill, result.decode, scenario, steps.profile());
  return result;
}

}  // namespace moeplan
