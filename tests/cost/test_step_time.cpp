#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <string>

#include "cost/step_time.hpp"
#include "model_fixtures.hpp"
#include "spec/hardware.hpp"

using namespace moeplan;

namespace {

Layout layout_of(std::int64_t tp, std::int64_t dp, std::int64_t ep) {
  Layout layout;
  layout.tp = tp;
  layout.dp = dp;
  layout.ep = ep;
  return layout;
}

double component_sum(const StepBreakdown& step) {
  return step.attention + step.moe_compute + step.dispatch_combine + step.otp_comm + step.tp_comm + step.other;
}

}  // namespace

TEST_CASE("the breakdown adds up") {
  const StepModel model(test::deepseek_v3(), hardware_preset("H200", "test", "hardware"));
  StepOptions options;
  options.dispatch = DispatchMode::deepep_low_latency;
  options.two_batch_overlap = true;
  const StepBreakdown step = model.decode(layout_of(1, 16, 16), {128, 2000}, options);
  CHECK(step.total == approx(component_sum(step) - step.overlap_saved));
  CHECK(step.total > 0);
  CHECK(step.otp_comm == 0.0);
  CHECK(step.tp_comm == 0.0);
  CHECK_FALSE(model.calibrated());
}

TEST_CASE("decode time grows with batch and context") {
  const StepModel model(test::deepseek_v3(), hardware_preset("H200", "test", "hardware"));
  const Layout layout = layout_of(8, 1, 1);
  const StepOptions options;
  const double small = model.decode(layout, {8, 1000}, options).total;
  CHECK(model.decode(layout, {64, 1000}, options).total > small);
  CHECK(model.decode(layout, {8, 8000}, options).attention > model.decode(layout, {8, 1000}, options).attention);
  // Pure TP8: one all-reduce after attention, one after the MoE, every layer.
  CHECK(model.decode(layout, {8, 1000}, options).tp_comm > 0);
  CHECK(model.decode(layout, {8, 1000}, options).dispatch_combine > 0);
}

TEST_CASE("OTP trades O-projection weight streaming for the collectives of [doc-004]") {
  const StepModel model(test::qwen3_235b(), hardware_preset("H200", "test", "hardware"));
  Layout layout = layout_of(1, 16, 16);
  const StepOptions options;
  const StepBreakdown plain = model.decode(layout, {48, 4096}, options);
  layout.otp = 4;
  const StepBreakdown split = model.decode(layout, {48, 4096}, options);
  CHECK(plain.otp_comm == 0.0);
  CHECK(split.otp_comm > 0.0);
  CHECK(split.attention < plain.attention);
  const std::vector<OtpDecision> decisions = model.otp_decisions(layout, 48);
  REQUIRE(decisions.size() == 1);
  CHECK(decisions[0].choice.by_volume == OtpScheme::x1);
  layout.qkvtp = 4;
  const std::vector<OtpDecision> both = model.otp_decisions(layout, 48);
  REQUIRE(both.size() == 2);
  CHECK(std::string(both[0].matrix) == "qkv");
  CHECK(both[0].choice.by_volume == OtpScheme::x2);
}

TEST_CASE("two-batch overlap hides communication behind compute") {
  const StepModel model(test::deepseek_v3(), hardware_preset("H100-SXM", "test", "hardware"));
  Layout layout = layout_of(1, 32, 32);
  layout.nodes = 4;
  StepOptions options;
  options.dispatch = DispatchMode::deepep_low_latency;
  const StepBreakdown serial = model.decode(layout, {256, 2000}, options);
  options.two_batch_overlap = true;
  const StepBreakdown overlapped = model.decode(layout, {256, 2000}, options);
  CHECK(overlapped.overlap_saved > 0);
  CHECK(overlapped.total < serial.total);
  // Each micro-batch streams the expert weights again: TBO's compute never shrinks.
  CHECK(overlapped.moe_compute >= serial.moe_compute);
}

TEST_CASE("imbalance slows the MoE and its dispatch") {
  const StepModel model(test::deepseek_v3(), hardware_preset("H200", "test", "hardware"));
  const Layout layout = layout_of(1, 16, 16);
  StepOptions options;
  options.dispatch = DispatchMode::deepep_low_latency;
  const StepBreakdown balanced = model.decode(layout, {256, 2000}, options);
  options.max_over_mean = 2.0;
  const StepBreakdown skewed = model.decode(layout, {256, 2000}, options);
  CHECK(skewed.moe_compute > balanced.moe_compute);
  CHECK(skewed.dispatch_combine > balanced.dispatch_combine);
}

TEST_CASE("fusing the shared expert moves its work into the grouped GEMM") {
  const StepModel model(test::deepseek_v3(), hardware_preset("H200", "test", "hardware"));
  Layout unfused = layout_of(8, 1, 1);
  Layout fused = unfused;
  fused.fused_shared = 1;
  const StepOptions options;
  const StepBreakdown separate = model.decode(unfused, {32, 1000}, options);
  const StepBreakdown together = model.decode(fused, {32, 1000}, options);
  // Same rows, same weights; the separate GEMM's three launches disappear.
  CHECK(together.moe_compute < separate.moe_compute);
  // What is not the EP slots' grouped GEMMs is the router on each MoE layer, and unfused, the shared expert.
  const Model& deepseek = test::deepseek_v3();
  const double routers =
      static_cast<double>(deepseek.moe_layers()) *
      model.compute().routing(32, deepseek.hidden_size, deepseek.moe.num_experts, deepseek.weights.router);
  CHECK(together.moe_compute - together.routed_experts == approx(routers).epsilon(1e-9));
  CHECK(separate.moe_compute - separate.routed_experts > routers);
}

TEST_CASE("weight prefetch and shared-expert overlap only ever save time") {
  const StepModel model(test::qwen3_235b(), hardware_preset("Ascend-910B", "test", "hardware"));
  const Layout layout = layout_of(1, 16, 16);
  StepOptions options;
  const StepBreakdown baseline = model.decode(layout, {64, 4096}, options);
  options.weight_prefetch_bytes = 25e6;
  const StepBreakdown prefetched = model.decode(layout, {64, 4096}, options);
  CHECK(prefetched.overlap_saved > 0);
  CHECK(prefetched.total < baseline.total);
  CHECK(prefetched.overlap_saved <= baseline.attention);
}

TEST_CASE("prefill scales with the token budget and the sequence length") {
  const StepModel model(test::deepseek_v3(), hardware_preset("H100-SXM", "test", "hardware"));
  const Layout layout = layout_of(1, 32, 32);
  StepOptions options;
  options.dispatch = DispatchMode::deepep_normal;
  const StepBreakdown short_sequences = model.prefill(layout, {8192, 1024, 0}, options);
  const StepBreakdown long_sequences = model.prefill(layout, {8192, 8192, 0}, options);
  CHECK(long_sequences.attention > short_sequences.attention);
  CHECK(model.prefill(layout, {16384, 1024, 0}, options).total > short_sequences.total);
  CHECK(short_sequences.total == approx(component_sum(short_sequences) - short_sequences.overlap_saved));
}

TEST_CASE("wide EP inside an NVL72 rack stays on NVLink; past the domain it pays the network") {
  // EP 64 fits the rack's NVLink domain of 72 [gb200-nvl72-datasheet]: a slower network leaves the dispatch
  // as it was. Confined to its tray of 4, the same EP group sends most rows over the network.
  Hardware rack = hardware_preset("GB200-NVL72", "test", "hardware");
  StepOptions options;
  options.dispatch = DispatchMode::deepep_low_latency;
  const Layout layout = layout_of(1, 64, 64);
  const auto dispatch = [&](const Hardware& hardware) {
    return StepModel(test::deepseek_v3(), hardware).decode(layout, {128, 2000}, options).dispatch_combine;
  };
  Hardware slow_network = rack;
  slow_network.inter_node_bandwidth /= 10;
  CHECK(dispatch(slow_network) == approx(dispatch(rack)));
  Hardware trays = rack;
  trays.nvlink_domain = 4;
  Hardware trays_slow = slow_network;
  trays_slow.nvlink_domain = 4;
  CHECK(dispatch(trays) > dispatch(rack));
  CHECK(dispatch(trays_slow) > dispatch(trays));
}
