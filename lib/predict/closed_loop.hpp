#pragma once
// Mean TTFT and TPOT of a closed-loop benchmark (a fixed number of requests in flight, each replaced
// as it finishes, fixed prompt and output lengths) in steady state, from a run's roofline costs and an
// engine profile. docs/prediction.md derives every formula.
#include "cost/engine_profile.hpp"
#include "predict/run_costs.hpp"

namespace moeplan::predict {

struct LoopPrediction {
  double ttft = 0;           // s
  double tpot = 0;           // s per output token after the first
  double decode_step = 0;    // s, one decode step with the profile applied
  double prefill = 0;        // s, one request's prompt with the profile applied
  double prefill_share = 0;  // rho: the share of a prefilling rank's time spent on prompts
};

// One decode step of the run's decode worker (cost/step_price.hpp's decode_step_seconds at its batch).
double decode_step_seconds(const RunCosts& costs, const EngineProfile& profile);

// One request's prompt on the prefill worker (cost/step_price.hpp's prompt_seconds).
double prefill_seconds(const RunCosts& costs, const EngineProfile& profile, double prompt_tokens);

// Mean wait in an M/D/1 queue whose server is busy `share` of the time with jobs of `service` s.
double queue_wait(double share, double service);

LoopPrediction predict_closed_loop(const RunCosts& costs, const EngineProfile& profile, double concurrency,
                                   double prompt_tokens, double output_tokens);

}  // namespace moeplan::predict
