// A planned layout at an offered load, checked against the models it rests on: the closed loop at the
// same concurrency, Little's law at the rate found, and the SLOs on either side of the capacity.
#include <doctest/doctest.h>

#include <string>

#include "plan/load_skew.hpp"
#include "predict/offered_load.hpp"
#include "predict/open_loop.hpp"
#include "predict/predictor.hpp"
#include "predict/run_costs.hpp"
#include "spec/hardware.hpp"

namespace {

using moeplan::predict::OfferedLoad;

struct Planned {
  moeplan::predict::Deployment deployment;
  moeplan::predict::MeasuredRun run;
  moeplan::EngineProfile profile;
};

// DeepSeek-V3 on one 8 x H200 node, tp 8 and ep 8, 1000 in / 200 out, SGLang's unfitted defaults.
Planned deepseek_tp8() {
  const moeplan::Model model = moeplan::load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/deepseek-v3.yaml");
  moeplan::Layout layout;
  layout.tp = 8;
  layout.ep = 8;
  const moeplan::Hardware hardware = moeplan::hardware_preset("H200", "test", "gpu");
  Planned planned{{model, hardware, layout, layout, "H200"},
                  moeplan::predict::planned_run("sglang", 1000, 200, layout),
                  moeplan::default_engine_profile("sglang")};
  return planned;
}

double seconds(double milliseconds) { return milliseconds / 1e3; }

}  // namespace

TEST_CASE("a plan's worker shape is its layout's") {
  moeplan::Layout layout;
  layout.tp = 2;
  layout.dp = 4;
  layout.ep = 8;
  const auto run = moeplan::predict::planned_run("vllm", 1000, 200, layout);
  CHECK(run.worker.tp == 2);
  CHECK(run.worker.attention_dp == 4);
  CHECK(run.worker.moe_ep == 8);
  CHECK(run.worker.moe_tp == 1);  // 8 ranks over EP 8
}

TEST_CASE("at a concurrency the estimate is the closed loop's") {
  const Planned planned = deepseek_tp8();
  const moeplan::StepModel steps(planned.deployment.model, planned.deployment.hardware, moeplan::roofline_efficiency());
  OfferedLoad load;
  load.concurrency = 32;
  const auto estimate =
      moeplan::predict::estimate_at_load(planned.run, planned.deployment, steps, planned.profile, load);
  const auto loop =
      moeplan::predict::predict_at_concurrency(planned.run, planned.deployment, steps, planned.profile, 32.0);
  CHECK(estimate.in_flight == 32.0);
  CHECK(seconds(estimate.tpot_ms) == doctest::Approx(loop.tpot));
  CHECK(seconds(estimate.ttft_ms) == doctest::Approx(loop.ttft));
}

TEST_CASE("the capacity meets the SLOs, 3 % more does not") {
  const Planned planned = deepseek_tp8();
  const moeplan::StepModel steps(planned.deployment.model, planned.deployment.hardware, moeplan::roofline_efficiency());
  OfferedLoad load;
  // A TPOT SLO 1.5 x the TPOT at 8 requests in flight: met at a low rate, missed at a high one.
  const double tpot_at_8 =
      moeplan::predict::predict_at_concurrency(planned.run, planned.deployment, steps, planned.profile, 8.0).tpot;
  load.tpot_slo = 1.5 * tpot_at_8;
  const double capacity =
      moeplan::predict::capacity_under_slo(planned.run, planned.deployment, steps, planned.profile, load);
  REQUIRE(capacity > 0.0);
  const auto at =
      moeplan::predict::predict_open_loop(planned.run, planned.deployment, steps, planned.profile, capacity);
  const auto above =
      moeplan::predict::predict_open_loop(planned.run, planned.deployment, steps, planned.profile, 1.03 * capacity);
  CHECK(at.loop.tpot <= *load.tpot_slo);
  CHECK(above.loop.tpot > *load.tpot_slo);
}

TEST_CASE("the memory's sequences bound the capacity by Little's law") {
  const Planned planned = deepseek_tp8();
  const moeplan::StepModel steps(planned.deployment.model, planned.deployment.hardware, moeplan::roofline_efficiency());
  OfferedLoad load;  // no SLO: only the 16 sequences the memory holds bind
  load.most_in_flight = 16.0;
  const double capacity =
      moeplan::predict::capacity_under_slo(planned.run, planned.deployment, steps, planned.profile, load);
  // At that rate a request lives L = TTFT + 199 TPOT, and rate x L requests are in flight: about 16.
  const auto loop =
      moeplan::predict::predict_open_loop(planned.run, planned.deployment, steps, planned.profile, capacity).loop;
  const double in_flight = capacity * (loop.ttft + 199.0 * loop.tpot);
  CHECK(in_flight <= 16.0 * 1.001);
  CHECK(in_flight >= 16.0 * 0.97);
}

TEST_CASE("an SLO a single request misses leaves no capacity") {
  const Planned planned = deepseek_tp8();
  const moeplan::StepModel steps(planned.deployment.model, planned.deployment.hardware, moeplan::roofline_efficiency());
  OfferedLoad load;
  load.ttft_slo = 1e-6;  // a microsecond: below any prompt's time
  CHECK(moeplan::predict::capacity_under_slo(planned.run, planned.deployment, steps, planned.profile, load) == 0.0);
}

TEST_CASE("a plan's run keeps the plan's dispatch; without one, the engines' default collectives") {
  Planned planned = deepseek_tp8();
  planned.deployment.worker.tp = 1;
  planned.deployment.worker.dp = 8;  // DP attention over 8 ranks, EP 8
  planned.deployment.prefill = planned.deployment.worker;
  const moeplan::StepModel steps(planned.deployment.model, planned.deployment.hardware, moeplan::roofline_efficiency());
  moeplan::RoleOptions deepep;
  deepep.dispatch = moeplan::DispatchMode::deepep_low_latency;
  deepep.two_batch_overlap = true;
  const auto run = moeplan::predict::planned_run("sglang", 1000, 200, planned.deployment.worker, deepep);
  const auto costs = moeplan::predict::run_costs(run, planned.deployment, steps);
  // Second method: the step model itself at the same batch, context and options.
  moeplan::StepOptions options;
  options.dispatch = moeplan::DispatchMode::deepep_low_latency;
  options.two_batch_overlap = true;
  options.max_over_mean = moeplan::max_over_mean(planned.deployment.model, planned.deployment.worker,
                                                 costs.decode_batch, moeplan::SkewModel{});
  const auto step = steps.decode(planned.deployment.worker, {costs.decode_batch, 1100}, options);
  CHECK(costs.decode.dispatch == doctest::Approx(step.dispatch_combine));
  CHECK(costs.decode.overlap_saved == doctest::Approx(step.overlap_saved));
  CHECK(step.overlap_saved > 0.0);
  const auto plain = moeplan::predict::planned_run("sglang", 1000, 200, planned.deployment.worker);
  CHECK(moeplan::predict::run_costs(plain, planned.deployment, steps).decode.dispatch == 0.0);
}

TEST_CASE("a cluster's load is spread evenly over the instances of a layout") {
  moeplan::predict::OfferedLoad load;
  load.request_rate = 10.0;
  load.concurrency = 10;
  // 10 requests/s over 4 instances: 2.5 each; 10 in flight over 4: ceil(2.5) = 3 each.
  const moeplan::predict::OfferedLoad share = moeplan::predict::load_per_instance(load, 4);
  CHECK(*share.request_rate == doctest::Approx(2.5));
  CHECK(*share.concurrency == 3);
  // One instance (or a count below one) keeps the whole load.
  CHECK(*moeplan::predict::load_per_instance(load, 0).concurrency == 10);
}
