#include "predict/closed_loop.hpp"

#include <algorithm>
#include <cmath>

namespace moeplan::predict {

namespace {

constexpr double kMostShare = 0.999;  // a server busier than this never drains its queue
constexpr int kBisections = 60;

// Behind a burst: half of the `others` prompts that arrived with this one, at `prefill` s each.
double burst_wait(const EngineProfile& profile, double others, double prefill) {
  return profile.arrival_burst * others / 2.0 * prefill;
}

// The state the loop settles at once the prompt servers are busy `share` of the time.
struct LoopState {
  double ttft = 0;
  double tpot = 0;
  double implied_share = 0;  // the share the resulting request rate gives
};

// Aggregated: prompts and decode share the ranks. Decode runs only in the time the other sequences'
// prompts leave (TPOT = step / (1 - rho), rho from the b - 1 others); a new prompt waits out the step in
// flight, the prompts queued before it, then its own, and under mixed chunks each of its chunks also
// carries a decode step.
LoopState aggregated_state(double share, const LoopPrediction& parts, const RunCosts& costs,
                           const EngineProfile& profile, double prompt_tokens, double output_tokens) {
  LoopState state;
  state.tpot = parts.decode_step / (1.0 - share) / costs.tokens_per_step;
  const double chunks = std::ceil(prompt_tokens / static_cast<double>(profile.chunk_tokens));
  const double riding = profile.scheduler == Scheduler::mixed_chunks ? chunks * parts.decode_step : 0.0;
  const double others = std::max(0.0, costs.decode_batch - 1.0);
  state.ttft = profile.overheads.request + parts.decode_step / 2.0 + queue_wait(share, parts.prefill) + parts.prefill +
               riding + burst_wait(profile, others, parts.prefill);
  const double lifetime = state.ttft + (output_tokens - 1.0) * state.tpot;
  state.implied_share = others / lifetime * parts.prefill;
  return state;
}

// Disaggregated: decode never waits for prompts; prompts queue on the prefill workers' ranks behind the
// c - 1 other requests', then their KV crosses to the decode worker.
LoopState disaggregated_state(double share, const LoopPrediction& parts, const RunCosts& costs,
                              const EngineProfile& profile, double concurrency, double output_tokens) {
  LoopState state;
  state.tpot = parts.decode_step / costs.tokens_per_step;
  const double others = std::max(0.0, concurrency - 1.0) / costs.prefill_ranks;
  state.ttft = profile.overheads.request + queue_wait(share, parts.prefill) + parts.prefill + costs.kv_transfer +
               burst_wait(profile, others, parts.prefill);
  const double lifetime = state.ttft + (output_tokens - 1.0) * state.tpot;
  state.implied_share = others / lifetime * parts.prefill;
  return state;
}

}  // namespace

double decode_step_seconds(const RunCosts& costs, const EngineProfile& profile) {
  return decode_step_seconds(costs.decode, costs.decode_batch, profile);
}

double prefill_seconds(const RunCosts& costs, const EngineProfile& profile, double prompt_tokens) {
  return prompt_seconds(costs.prefill, prompt_tokens, profile);
}

double queue_wait(double share, double service) {
  const double busy = std::clamp(share, 0.0, kMostShare);
  return busy / (2.0 * (1.0 - busy)) * service;
}

// Bisection on rho: the share assumed must equal the share the resulting request rate implies. The
// implied share falls as the assumed one rises (slower tokens, fewer requests), so one root exists.
LoopPrediction predict_closed_loop(const RunCosts& costs, const EngineProfile& profile, double concurrency,
                                   double prompt_tokens, double output_tokens) {
  LoopPrediction parts;
  parts.decode_step = decode_step_seconds(costs, profile);
  parts.prefill = prefill_seconds(costs, profile, prompt_tokens);
  const auto state = [&](double share) {
    return costs.disaggregated ? disaggregated_state(share, parts, costs, profile, concurrency, output_tokens)
                               : aggregated_state(share, parts, costs, profile, prompt_tokens, output_tokens);
  };
  double low = 0.0, high = kMostShare;
  for (int step = 0; step < kBisections; ++step) {
    const double middle = (low + high) / 2.0;
    (state(middle).implied_share > middle ? low : high) = middle;
  }
  const LoopState settled = state((low + high) / 2.0);
  parts.ttft = settled.ttft;
  parts.tpot = settled.tpot;
  parts.prefill_share = (low + high) / 2.0;
  return parts;
}

}  // namespace moeplan::predict
