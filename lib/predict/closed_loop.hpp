#pragma once
// Mean TTFT and TPOT of a closed-loop benchmark (a fixed number of requests in flight, each replaced
// as it finishes, fixed prompt and output lengths) in steady state, from a run's roofline costs and an
// engine profile: the run's steps priced (cost/step_price.hpp), then the loop plan/serving_loop.hpp solves.
// docs/prediction.md derives every formula.
#include "cost/engine_profile.hpp"
#include "plan/serving_loop.hpp"
#include "predict/run_costs.hpp"

namespace moeplan::predict {

using moeplan::LoopPrediction;
using moeplan::queue_wait;

// One decode step of the run's decode worker (cost/step_price.hpp's decode_step_seconds at its batch).
double decode_step_seconds(const RunCosts& costs, const EngineProfile& profile);

// One request's prompt on the prefill worker (cost/step_price.hpp's prompt_seconds).
double prefill_seconds(const RunCosts& costs, const EngineProfile& profile, double prompt_tokens);

// The run's steps priced with `profile`, as the loop takes them.
LoopCosts loop_costs(const RunCosts& costs, const EngineProfile& profile, double prompt_tokens);

LoopPrediction predict_closed_loop(const RunCosts& costs, const EngineProfile& profile, double concurrency,
                                   double prompt_tokens, double output_tokens);

}  // namespace moeplan::predict
