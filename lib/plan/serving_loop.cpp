#include "plan/serving_loop.hpp"

#include <algorithm>
#include <cmath>

namespace moeplan {

namespace {

constexpr double kMostShare = 0.999;  // a server busier than this never drains its queue
constexpr int kShareSteps = 100;
constexpr double kShareTolerance = 1e-12;
constexpr double kMostConcurrency = 1 << 20;
constexpr int kConcurrencyBisections = 50;

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
// prompts leave (TPOT = step / (1 - rho), rho from the b - 1 others); with attention DP the ranks step in
// lockstep, so decode runs only while no rank prefills (TPOT = step / (1 - rho)^dp, unless the engine starts
// the ranks' prompts together); a new prompt waits out the step in
// flight, the prompts queued before it, then its own, and under mixed chunks each of its chunks also
// carries a decode step.
LoopState aggregated_state(double share, const LoopCosts& costs, const EngineProfile& profile, double prompt_tokens,
                           double output_tokens) {
  LoopState state;
  const double stalling_ranks = profile.dp_prompts_aligned ? 1.0 : costs.lockstep_ranks;
  state.tpot = costs.decode_step / prompt_free_share(share, stalling_ranks) / costs.tokens_per_step;
  const double chunks = std::ceil(prompt_tokens / static_cast<double>(profile.chunk_tokens));
  const double riding = profile.scheduler == Scheduler::mixed_chunks ? chunks * costs.decode_step : 0.0;
  const double others = std::max(0.0, costs.decode_batch - 1.0);
  state.ttft = profile.overheads.request + costs.decode_step / 2.0 + queue_wait(share, costs.prompt) + costs.prompt +
               riding + burst_wait(profile, others, costs.prompt);
  const double lifetime = state.ttft + (output_tokens - 1.0) * state.tpot;
  state.implied_share = others / lifetime * costs.prompt;
  return state;
}

// Seconds from a disaggregated prompt's last prefill pass to its first token at the client. The token reaches
// the client from the decode worker, not from the prefill worker that sampled it: the prompt's KV crosses,
// then the request waits out the decode step in flight (half a step on average) and, where the decode worker
// samples the token itself, rides one step more (the profile's first_token_decode_steps).
double decode_side_first_token(const LoopCosts& costs, const EngineProfile& profile) {
  return costs.kv_transfer + profile.first_token_decode_steps * costs.decode_step;
}

// Disaggregated: decode never waits for prompts; prompts queue on the prefill workers' ranks behind the
// c - 1 other requests', then their KV crosses to the decode worker, whose next step returns the first token.
LoopState disaggregated_state(double share, const LoopCosts& costs, const EngineProfile& profile, double concurrency,
                              double output_tokens) {
  LoopState state;
  state.tpot = costs.decode_step / costs.tokens_per_step;
  const double others = std::max(0.0, concurrency - 1.0) / costs.prefill_ranks;
  state.ttft = profile.overheads.request + queue_wait(share, costs.prompt) + costs.prompt +
               decode_side_first_token(costs, profile) + burst_wait(profile, others, costs.prompt);
  const double lifetime = state.ttft + (output_tokens - 1.0) * state.tpot;
  state.implied_share = others / lifetime * costs.prompt;
  return state;
}

}  // namespace

double lockstep_ranks(bool has_moe, std::int64_t attention_dp, bool disaggregated) {
  return has_moe && !disaggregated ? static_cast<double>(std::max<std::int64_t>(1, attention_dp)) : 1.0;
}

double prompt_free_share(double share, double ranks) {
  return std::pow(1.0 - std::clamp(share, 0.0, kMostShare), std::max(1.0, ranks));
}

double queue_wait(double share, double service) {
  const double busy = std::clamp(share, 0.0, kMostShare);
  return busy / (2.0 * (1.0 - busy)) * service;
}

double request_lifetime(const LoopPrediction& loop, double output_tokens) {
  return loop.ttft + (output_tokens - 1.0) * loop.tpot;
}

// The share assumed must equal the share the resulting request rate implies. The implied share falls as the
// assumed one rises (slower tokens, fewer requests), so f(rho) = implied - rho falls and has one root in
// [0, most]: regula falsi with the Illinois step bracketing it, to 1e-12.
LoopPrediction closed_loop(const LoopCosts& costs, const EngineProfile& profile, double concurrency,
                           double prompt_tokens, double output_tokens) {
  const auto state = [&](double share) {
    return costs.disaggregated ? disaggregated_state(share, costs, profile, concurrency, output_tokens)
                               : aggregated_state(share, costs, profile, prompt_tokens, output_tokens);
  };
  double low = 0.0, high = kMostShare;
  double f_low = state(low).implied_share - low;
  double f_high = state(high).implied_share - high;
  double share = f_low <= 0 ? low : high;
  if (f_low > 0 && f_high < 0) {
    int kept_side = 0;
    for (int step = 0; step < kShareSteps && high - low > kShareTolerance; ++step) {
      share = (low * f_high - high * f_low) / (f_high - f_low);
      const double f_share = state(share).implied_share - share;
      if (f_share == 0) break;
      if (f_share > 0) {
        low = share, f_low = f_share;
        if (kept_side == 1) f_high /= 2.0;
        kept_side = 1;
      } else {
        high = share, f_high = f_share;
        if (kept_side == -1) f_low /= 2.0;
        kept_side = -1;
      }
    }
  }
  const LoopState settled = state(share);
  return {settled.ttft, settled.tpot, costs.decode_step, costs.prompt, share};
}

// Bisection on the concurrency c: the rate keeps rate x L(c) requests in flight, and L grows with c, so
// rate x L(c) - c changes sign once where the loop is consistent.
OpenLoopPrediction open_loop(const std::function<LoopPrediction(double)>& at_concurrency, double rate,
                             double output_tokens) {
  const auto excess = [&](double concurrency) {
    return rate * request_lifetime(at_concurrency(concurrency), output_tokens) - concurrency;
  };
  OpenLoopPrediction prediction;
  double low = 1.0, high = kMostConcurrency;
  if (excess(high) > 0) prediction.sustained = false;
  if (excess(low) <= 0) high = low;
  for (int step = 0; step < kConcurrencyBisections && high - low > 1e-3 * low; ++step) {
    const double middle = std::sqrt(low * high);
    (excess(middle) > 0 ? low : high) = middle;
  }
  prediction.concurrency = high;
  prediction.loop = at_concurrency(high);
  return prediction;
}

}  // namespace moeplan
