#pragma once
// What a benchmark would measure on a planned aggregated layout at an offered load (a request rate, or a
// number of requests kept in flight), priced as predict-runs prices a measured run (predict/run_costs.hpp),
// and the most requests per second the layout serves within the SLOs: the closed and open loops of
// docs/prediction.md (plan/serving_loop.hpp) with an engine profile. plan-deploy's own load figures come from
// the search (plan/serving.hpp), through the same loops; tests/predict/test_load_agreement.cpp holds the two
// together.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cost/engine_profile.hpp"
#include "cost/step_time.hpp"
#include "plan/search.hpp"
#include "predict/measured_runs.hpp"
#include "predict/run_deployment.hpp"
#include "spec/layout.hpp"
#include "spec/scenario.hpp"

namespace moeplan::predict {

struct OfferedLoad {
  std::optional<double> request_rate;        // requests/s (Poisson arrivals)
  std::optional<std::int64_t> concurrency;   // requests kept in flight (a closed loop)
  std::optional<double> ttft_slo, tpot_slo;  // s
  double most_in_flight = 1e300;             // sequences the layout's memory holds at once
};

struct LoadEstimate {
  double in_flight = 0;       // requests in flight at the offered load
  double ttft_ms = 0;         // the benchmark's mean TTFT
  double tpot_ms = 0;         // the benchmark's mean TPOT
  bool sustained = true;      // false: more in flight than the memory holds, or a queue without bound
  double capacity_rate = 0;   // requests/s served within both SLOs (an absent SLO does not bind); 0: none
  std::int64_t replicas = 1;  // instances of the layout the cluster holds; the figures above are one instance's,
                              // capacity_rate is all of them together
};

// The share of a cluster's load one of `replicas` instances receives, as a router spreads it evenly: the
// rate divided, and the requests kept in flight divided and rounded up.
OfferedLoad load_per_instance(const OfferedLoad& load, std::int64_t replicas);

// The run a plan's aggregated `layout` serves: `engine`, fixed lengths, the worker shape (tp, attention
// DP, expert TP x EP, pipeline stages), and the plan's dispatch and two-batch overlap (`options`; without
// them the engine's defaults, as for a measured row).
MeasuredRun planned_run(const std::string& engine, std::int64_t input_tokens, std::int64_t output_tokens,
                        const Layout& layout, const std::optional<RoleOptions>& options = std::nullopt);

// The profile every step of a scenario is priced with, read once: the tuned hardware profile when the
// scenario tunes its efficiencies (cost/engine_profile.hpp), its engine's <engine>.json from `folder`, that
// engine's unfitted defaults when the folder has none, and the mean of the folder's fitted profiles when the
// scenario names no engine.
EngineProfile scenario_profile(const std::string& folder, const Scenario& scenario);

// `steps` prices at the roofline (roofline_efficiency()), which the profiles were fitted on.
LoadEstimate estimate_at_load(const MeasuredRun& run, const Deployment& deployment, const StepModel& steps,
                              const EngineProfile& profile, const OfferedLoad& load);

// The largest request rate whose open-loop TTFT and TPOT stay within the SLOs with no more requests in
// flight than the memory holds, to 1 %; 0 when a single request misses them.
double capacity_under_slo(const MeasuredRun& run, const Deployment& deployment, const StepModel& steps,
                          const EngineProfile& profile, const OfferedLoad& load);

// The load and SLOs a scenario offers; neither a rate nor a concurrency when its workload gives none.
OfferedLoad offered_load(const Scenario& scenario);

}  // namespace moeplan::predict
