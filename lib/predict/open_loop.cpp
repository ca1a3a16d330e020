#include "predict/open_loop.hpp"

#include <algorithm>
#include <cmath>

namespace moeplan::predict {

LoopPrediction predict_at_concurrency(MeasuredRun run, const Deployment& deployment, const StepModel& steps,
                                      const EngineProfile& profile, double concurrency) {
  run.concurrency = std::max<std::int64_t>(1, std::llround(concurrency));
  WorkerShape& shape = run.disaggregated ? run.decode : run.worker;
  shape.batch = 0;
  const RunCosts costs = run_costs(run, deployment, steps);
  return predict_closed_loop(costs, profile, concurrency, static_cast<double>(run.input_tokens),
                             static_cast<double>(run.output_tokens));
}

OpenLoopPrediction predict_open_loop(MeasuredRun run, const Deployment& deployment, const StepModel& steps,
                                     const EngineProfile& profile, double rate) {
  const auto at_concurrency = [&](double concurrency) {
    return predict_at_concurrency(run, deployment, steps, profile, concurrency);
  };
  return open_loop(at_concurrency, rate, static_cast<double>(run.output_tokens));
}

}  // namespace moeplan::predict
