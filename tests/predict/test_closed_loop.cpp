// The closed-loop steady state against hand arithmetic: with every overhead 0 the balance
// rho = (others) x P / L reduces to a quadratic in rho, solved here in closed form (the library bisects).
#include <doctest/doctest.h>

#include <cmath>

#include "predict/closed_loop.hpp"

namespace {

using moeplan::EngineProfile;
using moeplan::Scheduler;
using moeplan::predict::RunCosts;

// Every multiplier 1, no overhead: the family times are the seconds the loop sees.
EngineProfile bare_profile(Scheduler scheduler, std::int64_t chunk_tokens) {
  EngineProfile profile;
  profile.scheduler = scheduler;
  profile.chunk_tokens = chunk_tokens;
  profile.multipliers = {1.0, 1.0, 1.0, 1.0, 1.0};
  profile.overheads = {0.0, 0.0, 0.0};
  profile.arrival_burst = 0.0;
  return profile;
}

// A decode step of 10 ms (attention only) and a prompt of 100 ms (prefill attention only).
RunCosts costs_at_batch(double batch) {
  RunCosts costs;
  costs.decode_batch = batch;
  costs.decode.attention = 0.010;
  costs.prefill.attention = 0.100;
  return costs;
}

// Nine requests over a disaggregated pair: decode as costs_at_batch(4), two prefill ranks, 5 ms of KV
// hand-off, 20 ms request overhead, the first token after `decode_steps` decode steps.
moeplan::LoopPrediction disaggregated_loop(double decode_steps) {
  RunCosts costs = costs_at_batch(4);
  costs.disaggregated = true;
  costs.prefill_ranks = 2;
  costs.kv_transfer = 0.005;
  EngineProfile profile = bare_profile(Scheduler::prefill_first, 8192);
  profile.overheads.request = 0.020;
  profile.first_token_decode_steps = decode_steps;
  return moeplan::predict::predict_closed_loop(costs, profile, 9, 1000, 11);
}

}  // namespace

TEST_CASE("an M/D/1 queue busy half the time waits half a service") {
  // rho / (2 (1 - rho)) x service = 0.5 / 1 x 2 s = 1 s.
  CHECK(moeplan::predict::queue_wait(0.5, 2.0) == doctest::Approx(1.0));
  CHECK(moeplan::predict::queue_wait(0.0, 2.0) == 0.0);
}

TEST_CASE("a decode step adds the overheads to each family at its multiplier") {
  RunCosts costs;
  costs.decode_batch = 4;
  costs.decode = {0.001, 0.002, 0.0005, 0.0004, 0.0001};
  EngineProfile profile;
  profile.multipliers = {2.0, 1.5, 1.0, 0.5, 3.0};
  profile.overheads = {0.05, 0.0003, 0.00001};
  // 0.0003 + 4 x 0.00001 + 2 x 0.001 + 1.5 x 0.002 + 0.0005 + 0.5 x 0.0004 - 0.0001 = 0.00594 s.
  CHECK(moeplan::predict::decode_step_seconds(costs, profile) == doctest::Approx(0.00594));
}

TEST_CASE("a prompt pays the step overhead of the chunks it fills") {
  RunCosts costs;
  costs.prefill = {0.010, 0.020, 0.005, 0.004, 0.0};
  EngineProfile profile;
  profile.multipliers = {1.0, 1.0, 1.0, 2.0, 1.5};
  profile.overheads = {0.0, 0.002, 0.0};
  profile.chunk_tokens = 4096;
  // 1.5 x (0.010 + 0.020 + 0.005) + 2 x 0.004 + 0.002 x 8192 / 4096 = 0.0525 + 0.008 + 0.004 = 0.0645 s.
  CHECK(moeplan::predict::prefill_seconds(costs, profile, 8192) == doctest::Approx(0.0645));
}

TEST_CASE("an all-to-all dispatch keeps its own price under any profile") {
  RunCosts costs;
  costs.decode_batch = 1;
  costs.decode.communication = 0.002;
  costs.decode.dispatch = 0.003;
  costs.prefill.communication = 0.004;
  costs.prefill.dispatch = 0.005;
  EngineProfile profile;
  profile.multipliers = {1.0, 1.0, 1.0, 0.25, 1.0};
  profile.overheads = {0.0, 0.0, 0.0};
  // Decode: 0.25 x 0.002 + 0.003 = 0.0035 s; prefill: 0.25 x 0.004 + 0.005 = 0.006 s (no step overhead).
  CHECK(moeplan::predict::decode_step_seconds(costs, profile) == doctest::Approx(0.0035));
  CHECK(moeplan::predict::prefill_seconds(costs, profile, 1000) == doctest::Approx(0.006));
}

TEST_CASE("one sequence alone never waits for a prompt") {
  // b = 1: no other prompts, so TPOT = D = 10 ms and TTFT = D / 2 + P = 105 ms.
  const auto loop = moeplan::predict::predict_closed_loop(costs_at_batch(1),
                                                          bare_profile(Scheduler::prefill_first, 8192), 1, 1000, 11);
  CHECK(loop.tpot == doctest::Approx(0.010));
  CHECK(loop.ttft == doctest::Approx(0.105));
  CHECK(loop.prefill_share == doctest::Approx(0.0).epsilon(1e-9));
}

TEST_CASE("two sequences: prefill-first stalls decode for the other's prompt") {
  // D = 0.01, P = 0.1, osl 11: x = 0.1 / L with L = 0.005 + 0.05 x / (1 - x) + 0.1 + 0.1 / (1 - x), so
  // 0.055 x^2 - 0.305 x + 0.1 = 0 and x = (0.305 - sqrt(0.071025)) / 0.11 = 0.349953;
  // TPOT = 0.01 / (1 - x) = 15.3835 ms, TTFT = 0.005 + 0.05 x / (1 - x) + 0.1 = 131.9175 ms.
  const auto loop = moeplan::predict::predict_closed_loop(costs_at_batch(2),
                                                          bare_profile(Scheduler::prefill_first, 8192), 2, 1000, 11);
  CHECK(loop.prefill_share == doctest::Approx(0.349953).epsilon(1e-5));
  CHECK(loop.tpot == doctest::Approx(0.0153835).epsilon(1e-5));
  CHECK(loop.ttft == doctest::Approx(0.1319175).epsilon(1e-5));
}

TEST_CASE("mixed chunks: each chunk of the prompt also carries a decode step") {
  // 1000 tokens in chunks of 512 = 2 chunks, adding 2 D to TTFT. Fixed point: x = 1/3 exactly, since
  // L = 0.005 + 0.025 + 0.1 + 0.02 + 10 x 0.015 = 0.3 and 0.1 / 0.3 = 1/3; TPOT = 15 ms, TTFT = 150 ms.
  const auto loop =
      moeplan::predict::predict_closed_loop(costs_at_batch(2), bare_profile(Scheduler::mixed_chunks, 512), 2, 1000, 11);
  CHECK(loop.prefill_share == doctest::Approx(1.0 / 3.0).epsilon(1e-6));
  CHECK(loop.tpot == doctest::Approx(0.015).epsilon(1e-6));
  CHECK(loop.ttft == doctest::Approx(0.150).epsilon(1e-6));
}

TEST_CASE("disaggregated: decode keeps its pace, prompts queue on the prefill ranks, the decode step returns") {
  // The first token comes back from the decode worker after half the step in flight and one step of its own:
  // 1.5 x D = 15 ms on top of o_req + P + KV = 0.125 s. c = 9 over 2 ranks: x = 8 / L / 2 x 0.1 = 0.4 / L with
  // L = 0.14 + 0.05 x / (1 - x) + 10 x 0.01, so x (0.24 (1 - x) + 0.05 x) = 0.4 (1 - x):
  // 0.19 x^2 - 0.64 x + 0.4 = 0 and x = (0.64 - sqrt(0.1056)) / 0.38 = 0.829049;
  // TTFT = 0.14 + 0.05 x / (1 - x) = 382.481 ms; TPOT = D = 10 ms.
  const auto loop = disaggregated_loop(1.5);
  CHECK(loop.tpot == doctest::Approx(0.010));
  CHECK(loop.prefill_share == doctest::Approx((0.64 - std::sqrt(0.1056)) / 0.38).epsilon(1e-6));
  CHECK(loop.prefill_share == doctest::Approx(0.829049).epsilon(1e-5));
  CHECK(loop.ttft == doctest::Approx(0.382481).epsilon(1e-5));
}

TEST_CASE("disaggregated on SGLang: the first token streams when the request joins the decode batch") {
  // The same loop with 0.5 decode steps after the KV instead of 1.5: o_req + P + KV + 0.5 D = 0.13 s, so
  // L = 0.23 + 0.05 x / (1 - x), x (0.23 (1 - x) + 0.05 x) = 0.4 (1 - x): 0.18 x^2 - 0.63 x + 0.4 = 0,
  // x = (0.63 - sqrt(0.1089)) / 0.36 = (0.63 - 0.33) / 0.36 = 5/6; TTFT = 0.13 + 0.05 x 5 = 380 ms.
  const auto loop = disaggregated_loop(0.5);
  CHECK(loop.prefill_share == doctest::Approx(5.0 / 6.0).epsilon(1e-6));
  CHECK(loop.ttft == doctest::Approx(0.380).epsilon(1e-6));
}

TEST_CASE("a burst of arrivals makes a prompt wait behind half of the others that came with it") {
  // b = 5, burst 1, decode 10 ms, prompts 100 ms: the burst adds 1 x 4 / 2 x 0.1 = 0.2 s to the TTFT
  // of the same loop without it, and the share it settles at moves with the longer lifetime. With
  // b = 1 there are no others and the burst adds nothing.
  EngineProfile profile = bare_profile(Scheduler::prefill_first, 8192);
  profile.arrival_burst = 1.0;
  const auto alone = moeplan::predict::predict_closed_loop(costs_at_batch(1), profile, 1, 1000, 11);
  CHECK(alone.ttft == doctest::Approx(0.105));
  // With b = 5 and burst 1: x = 0.4 / L, L = 0.105 + 0.05 x / (1 - x) + 0.2 + 0.1 / (1 - x), so
  // 0.255 x^2 - 0.805 x + 0.4 = 0... worked: L (1 - x) = 0.305 (1 - x) + 0.05 x + 0.1 = 0.405 - 0.255 x,
  // x (0.405 - 0.255 x) = 0.4 (1 - x): 0.255 x^2 - 0.805 x + 0.4 = 0, x = (0.805 - sqrt(0.240025)) / 0.51.
  const double share = (0.805 - std::sqrt(0.240025)) / 0.51;
  const auto burst = moeplan::predict::predict_closed_loop(costs_at_batch(5), profile, 5, 1000, 11);
  CHECK(burst.prefill_share == doctest::Approx(share).epsilon(1e-6));
  CHECK(burst.ttft == doctest::Approx(0.305 + 0.05 * share / (1.0 - share)).epsilon(1e-6));
}

TEST_CASE("speculative decoding: each step yields 1 + the accepted tokens") {
  RunCosts costs = costs_at_batch(4);
  costs.disaggregated = true;
  costs.prefill_ranks = 2;
  costs.kv_transfer = 0.005;
  costs.tokens_per_step = 2.5;
  EngineProfile profile = bare_profile(Scheduler::prefill_first, 8192);
  profile.overheads.request = 0.020;
  // The step of 10 ms now yields 2.5 tokens: TPOT = 10 / 2.5 = 4 ms.
  const auto loop = moeplan::predict::predict_closed_loop(costs, profile, 9, 1000, 11);
  CHECK(loop.tpot == doctest::Approx(0.004));
}

TEST_CASE("two lockstep DP ranks: decode runs only while neither prefills") {
  // Each rank busy rho with its own prompts, independently: both free (1 - rho)^2 of the time.
  CHECK(moeplan::prompt_free_share(0.2, 2.0) == doctest::Approx(0.64));
  CHECK(moeplan::prompt_free_share(0.2, 1.0) == doctest::Approx(0.8));
  // b = 2 per rank, 2 ranks: x = 0.1 / L with L = 0.105 + 0.05 x / (1 - x) + 10 x 0.01 / (1 - x)^2; times
  // (1 - x)^2: 0.055 x^3 - 0.26 x^2 + 0.405 x - 0.1 = 0, root x = 0.301575 (0.055 x 0.027428 - 0.26 x 0.090947
  // + 0.405 x 0.301575 - 0.1 = 0); TPOT = 0.01 / (1 - x)^2 = 20.5003 ms, TTFT = 0.105 + 0.05 x / (1 - x)
  // = 126.590 ms.
  RunCosts costs = costs_at_batch(2);
  costs.lockstep_ranks = 2;
  const EngineProfile independent = bare_profile(Scheduler::prefill_first, 8192);
  const auto loop = moeplan::predict::predict_closed_loop(costs, independent, 4, 1000, 11);
  CHECK(loop.prefill_share == doctest::Approx(0.301575).epsilon(1e-5));
  CHECK(loop.tpot == doctest::Approx(0.0205003).epsilon(1e-5));
  CHECK(loop.ttft == doctest::Approx(0.126590).epsilon(1e-5));
  // An engine that starts the ranks' prompts together stalls decode once per prompt wave: the one-rank
  // loop of "two sequences: prefill-first stalls decode for the other's prompt" (TPOT 15.3835 ms).
  EngineProfile aligned = independent;
  aligned.dp_prompts_aligned = true;
  const auto together = moeplan::predict::predict_closed_loop(costs, aligned, 4, 1000, 11);
  CHECK(together.tpot == doctest::Approx(0.0153835).epsilon(1e-5));
}

TEST_CASE("only an aggregated MoE worker's attention-DP ranks step in lockstep") {
  CHECK(moeplan::lockstep_ranks(true, 8, false) == 8.0);
  CHECK(moeplan::lockstep_ranks(true, 8, true) == 1.0);    // a disaggregated decode worker never prefills
  CHECK(moeplan::lockstep_ranks(false, 8, false) == 1.0);  // a dense model's ranks meet in no MoE collective
  CHECK(moeplan::lockstep_ranks(true, 1, false) == 1.0);
}
