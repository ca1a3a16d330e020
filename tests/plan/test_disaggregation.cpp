// Disaggregated pools: the prefill ranks' share within the TTFT SLO leaves room for the prompt's KV hand-off and
// the decode steps its first token waits on the decode pool, as the closed loop prices them.
#include <doctest/doctest.h>

#include <string>

#include "plan/disaggregation.hpp"
#include "sim/simulation_fixtures.hpp"

using namespace moeplan;

namespace {

// A pool candidate on one node of 8 GPUs with the priced seconds the pairing reads.
Candidate pool_candidate(double prompt_seconds, double decode_seconds) {
  Candidate candidate;
  candidate.layout.tp = 8;
  candidate.layout.ep = 8;
  candidate.serving.prompt_seconds = prompt_seconds;
  candidate.serving.decode_seconds = decode_seconds;
  candidate.serving.batch = 64;
  candidate.serving.requests_per_second = 10.0;
  candidate.serving.output_tokens_per_gpu = 1000.0;
  return candidate;
}

}  // namespace

TEST_CASE("a disaggregated plan's TTFT holds the prompt's KV hand-off and the decode side's first-token steps") {
  // DeepSeek-V3, 8192 tokens in, BF16 KV on H200: 61 layers x 576 x 2 B x 8192 = 575,668,224 B over 50 GB/s plus
  // 20 us = 11.533364 ms; a 20 ms decode step at 1.5 steps adds 30 ms: H = 41.533364 ms. With a 2 s TTFT SLO,
  // o_req 0.1 s and P = 0.5 s the budget is B = 2 - 0.1 - 0.5 - H = 1.358466636 s and the share
  // rho = 2B / (P + 2B) = 0.844572468, at which the wait rho / (2 (1 - rho)) P is B: TTFT = the SLO.
  const Model model = load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/deepseek-v3.yaml");
  Scenario scenario = test::h200_closed_loop(8192, 1024, 64, 100);
  scenario.cluster.nodes = 2;
  scenario.slo.ttft = 2.0;
  EngineProfile profile;
  profile.overheads.request = 0.1;
  profile.first_token_decode_steps = 1.5;
  const std::vector<Candidate> prefill{pool_candidate(0.5, 0.0)};
  const std::vector<Candidate> decode{pool_candidate(0.0, 0.020)};
  const auto plans = pair_pools(model, prefill, decode, scenario, profile);
  REQUIRE(plans.size() == 1);
  const double budget = 2.0 - 0.1 - 0.5 - (575668224.0 / 50e9 + 20e-6 + 1.5 * 0.020);
  CHECK(plans.front().prefill_share == doctest::Approx(2.0 * budget / (0.5 + 2.0 * budget)).epsilon(1e-9));
  CHECK(plans.front().prefill_share == doctest::Approx(0.844572468).epsilon(1e-8));
  CHECK(plans.front().ttft == doctest::Approx(2.0).epsilon(1e-9));
  // SGLang's half step leaves 20 ms more of the budget to the queue: rho = 2 x 1.378466636 / 3.256933272.
  profile.first_token_decode_steps = 0.5;
  const auto sglang = pair_pools(model, prefill, decode, scenario, profile);
  REQUIRE(sglang.size() == 1);
  CHECK(sglang.front().prefill_share == doctest::Approx(0.846481350).epsilon(1e-8));
  // A budget the hand-off alone overruns pairs nothing.
  scenario.slo.ttft = 0.1 + 0.5 + 0.02;
  CHECK(pair_pools(model, prefill, decode, scenario, profile).empty());
}
