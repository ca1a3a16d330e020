#include "predict/offered_load.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "predict/open_loop.hpp"
#include "predict/predictor.hpp"
#include "predict/run_costs.hpp"

namespace moeplan::predict {

namespace {

constexpr double kLowestRate = 1e-3;  // requests/s: about one request in flight
constexpr double kHighestRate = 1e7;  // requests/s: beyond any layout
constexpr double kCapacityTolerance = 0.01;

bool within(std::optional<double> slo, double seconds) { return !slo || seconds <= *slo; }

bool meets_slo(const OpenLoopPrediction& prediction, const OfferedLoad& load) {
  return prediction.sustained && prediction.concurrency <= load.most_in_flight &&
         within(load.ttft_slo, prediction.loop.ttft) && within(load.tpot_slo, prediction.loop.tpot);
}

LoadEstimate estimate_from(const LoopPrediction& loop, double in_flight, bool sustained) {
  return {in_flight, loop.ttft * 1e3, loop.tpot * 1e3, sustained, 0.0};
}

}  // namespace

MeasuredRun planned_run(const std::string& engine, std::int64_t input_tokens, std::int64_t output_tokens,
                        const Layout& layout, const std::optional<RoleOptions>& options) {
  MeasuredRun run;
  run.engine = engine;
  run.input_tokens = input_tokens;
  run.output_tokens = output_tokens;
  run.worker = {layout.tp, layout.pp, layout.dp, layout.moe_tp(), layout.ep, 0, 1};
  if (!options) return run;
  run.dispatch = options->dispatch;
  run.two_batch_overlap = options->two_batch_overlap;
  return run;
}

EngineProfile scenario_profile(const std::string& folder, const Scenario& scenario) {
  if (!scenario.cluster.efficiency.source.empty())
    return unit_profile("the scenario's tuned efficiencies (" + scenario.cluster.efficiency.source + ")");
  std::error_code error;
  if (scenario.engine.engine) {
    const std::string file = engine_profile_path(folder, scenario.engine.name);
    if (std::filesystem::is_regular_file(file, error)) {
      EngineProfile profile = read_engine_profile(file);
      profile.source = file + ": " + profile.source;
      return profile;
    }
    EngineProfile profile = default_engine_profile(scenario.engine.name);
    profile.source = "no profile " + file + ": the engine's unfitted defaults";
    return profile;
  }
  std::vector<EngineProfile> fitted;
  for (const Engine engine : kEngines) {
    const std::string file = engine_profile_path(folder, engine_name(engine));
    if (!std::filesystem::is_regular_file(file, error)) continue;
    EngineProfile profile = read_engine_profile(file);
    if (profile.fitted) fitted.push_back(std::move(profile));
  }
  return mean_profile(fitted);
}

LoadEstimate estimate_at_load(const MeasuredRun& run, const Deployment& deployment, const StepModel& steps,
                              const EngineProfile& profile, const OfferedLoad& load) {
  LoadEstimate estimate;
  if (load.request_rate) {
    const OpenLoopPrediction open = predict_open_loop(run, deployment, steps, profile, *load.request_rate);
    estimate = estimate_from(open.loop, open.concurrency, open.sustained);
  } else if (load.concurrency) {
    const double in_flight = static_cast<double>(*load.concurrency);
    estimate = estimate_from(predict_at_concurrency(run, deployment, steps, profile, in_flight), in_flight, true);
  }
  estimate.sustained = estimate.sustained && estimate.in_flight <= load.most_in_flight;
  estimate.capacity_rate = capacity_under_slo(run, deployment, steps, profile, load);
  return estimate;
}

// Doubling from the lowest rate until the SLOs break, then bisection on the logarithm of the rate.
double capacity_under_slo(const MeasuredRun& run, const Deployment& deployment, const StepModel& steps,
                          const EngineProfile& profile, const OfferedLoad& load) {
  const auto meets = [&](double rate) {
    return meets_slo(predict_open_loop(run, deployment, steps, profile, rate), load);
  };
  if (!meets(kLowestRate)) return 0.0;
  double low = kLowestRate, high = 1.0;
  while (high < kHighestRate && meets(high)) {
    low = high;
    high *= 2.0;
  }
  while (high - low > kCapacityTolerance * low) {
    const double middle = std::sqrt(low * high);
    (meets(middle) ? low : high) = middle;
  }
  return low;
}

OfferedLoad offered_load(const Scenario& scenario) {
  return {scenario.workload.request_rate, scenario.workload.concurrency, scenario.slo.ttft, scenario.slo.tpot};
}

OfferedLoad load_per_instance(const OfferedLoad& load, std::int64_t replicas) {
  OfferedLoad share = load;
  const std::int64_t instances = std::max<std::int64_t>(1, replicas);
  if (share.request_rate) *share.request_rate /= static_cast<double>(instances);
  if (share.concurrency) *share.concurrency = (*share.concurrency + instances - 1) / instances;
  return share;
}

}  // namespace moeplan::predict
