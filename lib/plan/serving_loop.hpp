#pragma once
// The closed and open loops of docs/prediction.md: mean TTFT and TPOT of a deployment in steady state
// with a number of requests in flight (closed) or at a request rate (open), from its priced decode step and
// prompt. The search, the offered load, predict-runs and fit-engine all solve them here.
#include <cstdint>
#include <functional>

#include "cost/engine_profile.hpp"

namespace moeplan {

// What the loops need of a deployment at one decode batch, every step already priced with the profile.
struct LoopCosts {
  double decode_step = 0;      // s: one decode step at `decode_batch` (cost/step_price.hpp)
  double prompt = 0;           // s: one request's prompt on the prefill ranks (cost/step_price.hpp)
  double decode_batch = 1;     // sequences per attention-DP rank of the decode worker
  double tokens_per_step = 1;  // tokens a sequence gains per decode step: 1 + accepted drafted tokens
  double prefill_ranks = 1;    // attention-DP ranks prefilling side by side (all prefill workers)
  double kv_transfer = 0;      // s: one prompt's KV cache from the prefill to the decode worker
  bool disaggregated = false;
  // Attention-DP ranks of one aggregated worker whose MoE layers meet in a collective every step, so each
  // step waits for the slowest of them ([vllm-dp-lockstep], [sglang-dp-mlp-sync]): a prompt on any one
  // stalls the decode of all, unless the engine starts their prompts together (1: no attention DP).
  double lockstep_ranks = 1;
};

struct LoopPrediction {
  double ttft = 0;           // s
  double tpot = 0;           // s per output token after the first
  double decode_step = 0;    // s, one decode step with the profile applied
  double prefill = 0;        // s, one request's prompt with the profile applied
  double prefill_share = 0;  // rho: the share of a prefilling rank's time spent on prompts
};

// The lockstep ranks of a worker with `attention_dp` ranks: an aggregated MoE worker's DP ranks meet in the
// MoE collectives every step; a dense model's ranks and a disaggregated decode worker's never wait for a
// prompt (1).
double lockstep_ranks(bool has_moe, std::int64_t attention_dp, bool disaggregated);

// Share of the steps free of prompts when each of `ranks` lockstep ranks spends `share` of its time on its
// own prompts, independently of the others: (1 - share)^ranks.
double prompt_free_share(double share, double ranks);

// Mean wait in an M/D/1 queue whose server is busy `share` of the time with jobs of `service` s.
double queue_wait(double share, double service);

// A request's life in the loop: TTFT + (output - 1) x TPOT, s.
double request_lifetime(const LoopPrediction& loop, double output_tokens);

// The closed loop with `concurrency` requests in flight of `prompt_tokens` in and `output_tokens` out.
LoopPrediction closed_loop(const LoopCosts& costs, const EngineProfile& profile, double concurrency,
                           double prompt_tokens, double output_tokens);

struct OpenLoopPrediction {
  double concurrency = 0;  // requests in flight the rate keeps
  LoopPrediction loop;
  bool sustained = true;  // false: the rate outruns the deployment, the queue grows without bound
};

// The open loop at `rate` requests/s: the concurrency c at which rate x lifetime(c) = c, with
// `at_concurrency` the closed loop at c requests in flight.
OpenLoopPrediction open_loop(const std::function<LoopPrediction(double)>& at_concurrency, double rate,
                             double output_tokens);

}  // namespace moeplan
