// The simulation against plan-deploy's static estimate, and invariants a whole run must keep.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "io/input_error.hpp"
#include "plan/search.hpp"
#include "sim/simulation.hpp"
#include "sim/simulation_fixtures.hpp"
#include "sim/step_cost.hpp"

using namespace moeplan;
using namespace moeplan::sim;

namespace {

struct Setting {
  Model model = test::qwen3_235b();
  Scenario scenario;
  StepModel ceilings;
  EngineProfile profile = unit_profile("test");
  StepCost steps;
  ServingContext context;

  explicit Setting(Scenario chosen)
      : scenario(std::move(chosen)),
        ceilings(model, scenario.cluster.hardware, moeplan::tuned_efficiency(scenario.cluster.efficiency)),
        steps(ceilings, profile),
        context{model, scenario, steps, SkewModel{}} {}

  PoolSpec pool(const std::string& text, Role role = Role::aggregated) const {
    const Layout layout = parse_layout(text, "test");
    return {layout, best_role_options(context, layout, role), 1};
  }

  ServingEstimate estimate(const PoolSpec& pool) const {
    const Workload& workload = scenario.workload;
    const MemoryPlan memory = plan_memory(model, pool.layout, scenario.cluster.hardware, scenario.memory,
                                          workload.input_tokens + workload.output_tokens);
    return estimate_serving(context, pool.layout, memory, pool.options);
  }
};

}  // namespace

// The agreement test: with no memory pressure and the batch fixed by the concurrency, every
// sequence ages from input to input + output, so the mean context is plan-deploy's input + output / 2, and
// the simulator's decode step is the one plan-deploy's loop prices at that load (unit profile: the step
// model's total). Its closed loop starts requests together and they finish together, so a wave is every
// rank's b prompts, then its decode steps: b x DP x output tokens per b x P + output x D seconds (output - 1
// steps follow the prefill's token, 0.1 % less), with P one request's share of the priced prefill step.
TEST_CASE("steady state matches plan-deploy's static estimate for the same layout and batch") {
  for (const char* text : {"tp=8", "dp=8,ep=8"}) {
    CAPTURE(text);
    const std::int64_t batch_per_rank = 16;
    const PoolSpec probe = Setting(test::h200_closed_loop(512, 1024, 1, 1)).pool(text);
    const std::int64_t concurrency = batch_per_rank * probe.layout.dp;
    const Setting setting(test::h200_closed_loop(512, 1024, concurrency, 4 * concurrency));
    const PoolSpec pool = setting.pool(text);
    const ServingEstimate estimate = setting.estimate(pool);
    REQUIRE(estimate.load.offered);
    REQUIRE(estimate.load.in_flight == static_cast<double>(concurrency));
    const auto batch = static_cast<double>(batch_per_rank);
    const double decode = loop_at_batch(setting.context, pool.layout, estimate, batch).decode_step;
    const SimulationResult result = simulate_aggregated(setting.context, pool, SimulationOptions{});
    CHECK_FALSE(result.summary.memory_binds_at);
    // Each request's first token comes from its prefill step, so a wave has output - 1 decode steps: 0.1 %.
    CHECK(result.summary.tpot.mean == approx(decode).epsilon(0.002));
    const double prompt = estimate.prefill_seconds * 512.0 / static_cast<double>(estimate.prefill_tokens);
    const double wave = batch * prompt + 1024.0 * decode;
    const double per_gpu =
        batch * static_cast<double>(pool.layout.dp) * 1024.0 / wave / static_cast<double>(pool.layout.gpus());
    CHECK(result.summary.output_tokens_per_gpu == approx(per_gpu).epsilon(0.002));
  }
}

// vllm-ascend replays the smallest captured graph that holds the batch: 12 sequences run as 16 rows
// attending to the 12 sequences' tokens, in the simulation and in plan-deploy's estimate alike.
TEST_CASE("a decode-only step is padded to the captured graph size, in the simulation and the estimate") {
  Scenario scenario = test::h200_closed_loop(512, 1024, 12, 48);
  scenario.memory.graph_batch_sizes = {8, 16};
  const Setting setting(scenario);
  const PoolSpec pool = setting.pool("tp=8");
  const ServingEstimate estimate = setting.estimate(pool);
  REQUIRE(estimate.load.in_flight == 12.0);
  const double attended = 12.0 * (512 + 1024 / 2.0);
  const StepOptions options = role_step_options(setting.context, pool.layout, pool.options, 16);
  const double padded = setting.ceilings.decode(pool.layout, DecodeInput{16, attended / 16}, options).total;
  const double unpadded = setting.ceilings
                              .decode(pool.layout, DecodeInput{12, attended / 12},
                                      role_step_options(setting.context, pool.layout, pool.options, 12))
                              .total;
  CHECK(padded > unpadded);
  CHECK(loop_at_batch(setting.context, pool.layout, estimate, 12).decode_step == approx(padded).epsilon(1e-12));
  const SimulationResult result = simulate_aggregated(setting.context, pool, SimulationOptions{});
  CHECK(result.summary.tpot.mean == approx(padded).epsilon(0.002));
}

TEST_CASE("every request's tokens come out once, preemptions and recompute included") {
  // 2K prompts with 6K outputs at 48 per rank overflow the KV cache of an H200 holding 94 GiB of weights.
  Scenario scenario = test::h200_closed_loop(2048, 6144, 128, 256);
  scenario.memory.max_batch = 128;
  scenario.memory.utilization = 0.74;
  const Setting setting(scenario);
  const SimulationResult result = simulate_aggregated(setting.context, setting.pool("tp=8"), SimulationOptions{});
  CHECK(result.summary.completed == 256);
  CHECK(result.summary.output_tokens == 256 * 6144);
  CHECK(result.summary.preemptions > 0);
  REQUIRE(result.summary.memory_binds_at);
  CHECK(*result.summary.memory_binds_at < result.summary.elapsed);
  for (const SeriesPoint& point : result.pools.front().series) CHECK(point.kv_use <= 1.0);
}

TEST_CASE("a duration limit stops the run at that time") {
  const Setting setting(test::h200_closed_loop(1024, 4096, 64, 1000));
  SimulationOptions options;
  options.duration = 20;
  const SimulationResult result = simulate_aggregated(setting.context, setting.pool("tp=8"), options);
  CHECK(result.summary.elapsed == 20);
  CHECK(result.summary.completed < 1000);
  CHECK(result.summary.output_tokens > 0);
}

TEST_CASE("Poisson arrivals at a low rate see an empty server: TTFT is one prefill step") {
  Scenario scenario = test::h200_closed_loop(1024, 64, 1, 200);
  scenario.workload.concurrency.reset();
  scenario.workload.request_rate = 0.05;  // one request every 20 s; each lasts well under a second
  const Setting setting(scenario);
  const PoolSpec pool = setting.pool("tp=8");
  const SimulationResult result = simulate_aggregated(setting.context, pool, SimulationOptions{});
  CHECK(result.summary.completed == 200);
  // A lone 1024-token prompt: one chunk, priced as estimate_serving prices its prefill step per token.
  const ServingEstimate estimate = setting.estimate(pool);
  const double alone = estimate.prefill.total * 1024.0 / static_cast<double>(estimate.prefill_tokens);
  CHECK(result.summary.ttft.p50 == approx(alone).epsilon(1e-9));
  // 200 arrivals at 0.05/s span about 4000 s.
  CHECK(result.summary.elapsed == approx(4000).epsilon(0.15));
}

TEST_CASE("disaggregated pools hand every request from prefill to decode") {
  Scenario scenario = test::h200_closed_loop(2048, 512, 64, 256);
  scenario.cluster.nodes = 2;
  const Setting setting(scenario);
  const SimulationResult result = simulate_disaggregated(setting.context, setting.pool("tp=8", Role::prefill),
                                                         setting.pool("tp=8", Role::decode), SimulationOptions{});
  REQUIRE(result.pools.size() == 2);
  CHECK(result.summary.completed == 256);
  CHECK(result.summary.output_tokens == 256 * 512);
  CHECK(result.pools[0].steps > 0);
  CHECK(result.pools[1].steps > 0);
  CHECK(result.summary.output_tokens_per_gpu * 16 == approx(result.summary.output_tokens_per_second));
}

TEST_CASE("a layout whose KV cache cannot hold one whole request is refused") {
  const Setting setting(test::h200_closed_loop(1024, 1 << 22, 8, 8));
  CHECK_THROWS_AS(simulate_aggregated(setting.context, setting.pool("tp=8"), SimulationOptions{}), InputError);
}

TEST_CASE("a traced workload's tokens all come out, and the longest request decides what a rank must hold") {
  Scenario scenario = test::h200_closed_loop(1, 1, 8, 30);
  scenario.workload.length_trace = {{512, 100}, {2048, 7}, {64, 300}};
  const Setting setting(scenario);
  const SimulationResult result = simulate_aggregated(setting.context, setting.pool("tp=8"), SimulationOptions{});
  CHECK(result.summary.completed == 30);
  CHECK(result.summary.output_tokens == 10 * (100 + 7 + 300));
  // One traced request longer than any KV cache: refused, though the trace's mean would fit.
  scenario.workload.length_trace.push_back({1024, 1 << 22});
  const Setting too_long(scenario);
  CHECK_THROWS_WITH_AS(simulate_aggregated(too_long.context, too_long.pool("tp=8"), SimulationOptions{}),
                       doctest::Contains("holds the longest request (4195328 tokens)"), InputError);
}

// Two DP ranks, one sequence each, requests alternating 2000 and 20 output tokens, two in flight. When the
// short request ends, the next long one is sent: vLLM's client puts it on the idle rank, round-robin on
// rank 0 behind the first long request, where it waits about 1980 decode steps for its first token.
TEST_CASE("least-in-flight routing sends a request to the idle DP rank, round-robin queues it") {
  Scenario scenario = test::h200_closed_loop(1, 1, 2, 4);
  scenario.workload.length_trace = {{512, 2000}, {512, 20}};
  scenario.memory.max_batch = 1;
  const auto run = [&](DpRouting routing) {
    scenario.workload.dp_routing = routing;
    const Setting setting(scenario);
    return simulate_aggregated(setting.context, setting.pool("tp=4,dp=2,ep=8"), SimulationOptions{}).summary;
  };
  const SimulationSummary least = run(DpRouting::least_in_flight);
  const SimulationSummary turns = run(DpRouting::round_robin);
  CHECK(least.completed == 4);
  CHECK(turns.completed == 4);
  // A decode step is about one TPOT: the queued request's ~1980 steps spread over four requests' mean.
  CHECK(turns.ttft.mean > 400 * turns.tpot.mean);
  CHECK(least.ttft.mean < 5 * least.tpot.mean);
}

// Two DP ranks, one request each, both finished by their prefill (one output token): a 4096-token prompt on
// one rank, a 16-token one on the other, so the run is that one step. It is priced here from plan-deploy's
// prefill step of 8192 tokens a rank: per token, its expert GEMMs and the rest. Padded, both ranks run
// 4096 tokens; unpadded, the step waits for the long prompt's own part while the experts take both
// prompts' tokens, half of them a rank.
TEST_CASE("a lone long prefill stalls the other DP rank by its whole cost padded, less its spread experts not") {
  Scenario scenario = test::h200_closed_loop(1, 1, 2, 2);
  scenario.workload.length_trace = {{4096, 1}, {16, 1}};
  const auto per_token = [&](const Setting& setting, const PoolSpec& pool, double length) {
    const StepOptions options = role_step_options(setting.context, pool.layout, pool.options, 8192);
    const StepBreakdown step = setting.ceilings.prefill(pool.layout, PrefillInput{8192, length, 0}, options);
    REQUIRE(step.routed_experts > 0);
    return PrefillCost{(step.total - step.routed_experts) / 8192, step.routed_experts / 8192};
  };
  for (const bool padded : {true, false}) {
    CAPTURE(padded);
    scenario.memory.pad_prefill_across_dp = padded;
    const Setting setting(scenario);
    const PoolSpec pool = setting.pool("tp=4,dp=2,ep=8");
    const PrefillCost long_rate = per_token(setting, pool, 4096);
    const PrefillCost short_rate = per_token(setting, pool, 16);
    const double expected = padded ? 4096 * (long_rate.local + long_rate.expert)
                                   : 4096 * long_rate.local + (4096 * long_rate.expert + 16 * short_rate.expert) / 2;
    const SimulationSummary summary = simulate_aggregated(setting.context, pool, SimulationOptions{}).summary;
    CHECK(summary.completed == 2);
    CHECK(summary.elapsed == approx(expected).epsilon(1e-9));
  }
}
