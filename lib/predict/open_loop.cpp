#include "predict/open_loop.hpp"

#include <algorithm>
#include <cmath>

namespace moeplan::predict {

namespace {

constexpr double kMostConcurrency = 1 << 20;
constexpr int kBisections = 50;

double lifetime(const LoopPrediction& loop, double output_tokens) {
  return loop.ttft + (output_tokens - 1.0) * loop.tpot;
}

}  // namespace

LoopPrediction predict_at_concurrency(MeasuredRun run, const Deployment& deployment, const StepModel& steps,
                                      const EngineProfile& profile, double concurrency) {
  run.concurrency = std::max<std::int64_t>(1, std::llround(concurrency));
  WorkerShape& shape = run.disaggregated ? run.decode : run.worker;
  shape.batch = 0;
  const RunCosts costs = run_costs(run, deployment, steps);
  return predict_closed_loop(costs, profile, concurrency, static_cast<double>(run.input_tokens),
                             static_cast<double>(run.output_tokens));
}

// Bisection on the concurrency c: the rate keeps rate x L(c) requests in flight, and L grows with c, so
// rate x L(c) - c changes sign once where the loop is consistent.
OpenLoopPrediction predict_open_loop(MeasuredRun run, const Deployment& deployment, const StepModel& steps,
                                     const EngineProfile& profile, double rate) {
  const double output = static_cast<double>(run.output_tokens);
  const auto excess = [&](double concurrency) {
    return rate * lifetime(predict_at_concurrency(run, deployment, steps, profile, concurrency), output) - concurrency;
  };
  OpenLoopPrediction prediction;
  double low = 1.0, high = kMostConcurrency;
  if (excess(high) > 0) prediction.sustained = false;
  if (excess(low) <= 0) high = low;
  for (int step = 0; step < kBisections && high - low > 1e-3 * low; ++step) {
    const double middle = std::sqrt(low * high);
    (excess(middle) > 0 ? low : high) = middle;
  }
  prediction.concurrency = high;
  prediction.loop = predict_at_concurrency(run, deployment, steps, profile, high);
  return prediction;
}

}  // namespace moeplan::predict
