#pragma once
// A benchmark at a request rate (Poisson arrivals, an open loop) in steady state: by Little's law the
// requests in flight are the rate times a request's life, so the closed-loop prediction at that many
// requests, solved for consistency, is the open loop's.
#include "cost/step_time.hpp"
#include "predict/closed_loop.hpp"
#include "predict/run_deployment.hpp"

namespace moeplan::predict {

using moeplan::OpenLoopPrediction;

// The closed loop at `concurrency` requests in flight: `run` gives the engine, lengths and worker shape
// (its concurrency and batch are replaced).
LoopPrediction predict_at_concurrency(MeasuredRun run, const Deployment& deployment, const StepModel& steps,
                                      const EngineProfile& profile, double concurrency);

// `run` gives the engine, lengths and worker shape (its concurrency and batch are replaced); `rate` in
// requests per second.
OpenLoopPrediction predict_open_loop(MeasuredRun run, const Deployment& deployment, const StepModel& steps,
                                     const EngineProfile& profile, double rate);

}  // namespace moeplan::predict
