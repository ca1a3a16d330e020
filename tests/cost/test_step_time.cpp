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

TEST_CASE("pipeline stages: (m + pp - 1) slots of the slowest stage plus the transfers between stages") {
  const Model qwen = test::qwen3_235b();  // 94 layers, no dense layers: two stages of 47
  Model half = qwen;
  half.num_layers = 47;
  const Hardware h200 = hardware_preset("H200", "test", "hardware");
  const StepModel pipelined(qwen, h200);
  const StepModel half_model(half, h200);
  Layout stages = layout_of(8, 1, 1);
  stages.pp = 2;
  stages.nodes = 2;
  StepOptions options;
  options.micro_batches = 2;
  const StepBreakdown step = pipelined.decode(stages, {64, 2000}, options);
  // One slot is one micro-batch (64 / 2 = 32 sequences) through 47 layers and the LM head: the 47-layer
  // model at 32 sequences, less its embedding lookup (well under 2 % of the slot).
  const double slot = (step.total - step.pipeline_bubble - step.pipeline_transfer) / 2.0;
  CHECK(slot == approx(half_model.decode(layout_of(8, 1, 1), {32, 2000}, options).total).epsilon(0.02));
  // m + pp - 1 = 3 slots: 2 of work, 1 idle while the pipeline fills and drains.
  CHECK(step.pipeline_bubble == approx(slot));
  // The 32 tokens' hidden states and residual, 32 x 4096 x 2 tensors x 2 bytes = 524288 bytes, cross one
  // boundary; stage 1 starts the second node (8 GPUs per node), so it goes over the network.
  const CollectiveModel& links = pipelined.collectives();
  CHECK(step.pipeline_transfer == approx(links.time(Collective::point_to_point, Group{2, 1}, 524288.0)));
  // Stages of 4 GPUs share a node: the boundary crosses NVLink instead.
  Layout small_stages = layout_of(4, 1, 1);
  small_stages.pp = 2;
  const StepBreakdown near = pipelined.decode(small_stages, {64, 2000}, options);
  CHECK(near.pipeline_transfer == approx(links.time(Collective::point_to_point, Group{2, 2}, 524288.0)));
  CHECK(near.pipeline_transfer < step.pipeline_transfer);
}

TEST_CASE("one stage runs no pipeline terms") {
  const StepModel model(test::qwen3_235b(), hardware_preset("H200", "test", "hardware"));
  const StepBreakdown step = model.decode(layout_of(8, 1, 1), {64, 2000}, {});
  CHECK(step.pipeline_bubble == 0.0);
  CHECK(step.pipeline_transfer == 0.0);
}

TEST_CASE("speculative decoding verifies 1 + k tokens per sequence after k draft passes") {
  const Model deepseek = test::deepseek_v3();
  const Hardware h200 = hardware_preset("H200", "test", "hardware");
  const StepModel model(deepseek, h200);
  const Layout layout = layout_of(8, 1, 1);  // 16 heads per rank: the attention core is bound by its cache reads
  StepOptions plain;
  StepOptions drafted;
  drafted.draft_tokens = 1;
  drafted.draft = DraftShape{1, 0, 2};  // DeepSeek-V3's MTP module
  const StepBreakdown verify = model.decode(layout, {32, 2000}, drafted);
  // The MoE sees 32 x (1 + 1) = 64 tokens, as plain decoding of 64 sequences does.
  const StepBreakdown doubled = model.decode(layout, {64, 2000}, plain);
  CHECK(verify.moe_compute == approx(doubled.moe_compute));
  CHECK(verify.dispatch_combine == approx(doubled.dispatch_combine));
  // The attention core reads each sequence's cache once: far less than 64 sequences' caches would cost.
  CHECK(verify.attention < doubled.attention);
  CHECK(verify.total == approx(component_sum(verify) - verify.overlap_saved + verify.draft));
  // k = 2 drafts twice with the same pass.
  drafted.draft_tokens = 2;
  CHECK(model.decode(layout, {32, 2000}, drafted).draft == approx(2.0 * verify.draft));
}

TEST_CASE("a draft layer costs what one more layer of the model costs") {
  // Models of one and two MoE layers differ by exactly one layer (attention and MoE) at the same batch.
  Model one_layer = test::deepseek_v3();
  one_layer.dense_layers = 0;
  one_layer.num_layers = 1;
  Model two_layers = one_layer;
  two_layers.num_layers = 2;
  const Hardware h200 = hardware_preset("H200", "test", "hardware");
  const StepModel model(test::deepseek_v3(), h200);
  const Layout layout = layout_of(8, 1, 1);
  const double layer = StepModel(two_layers, h200).decode(layout, {16, 1000}, {}).total -
                       StepModel(one_layer, h200).decode(layout, {16, 1000}, {}).total;
  StepOptions one_draft_layer;
  one_draft_layer.draft_tokens = 1;
  one_draft_layer.draft = DraftShape{1, 0, 2};
  StepOptions two_draft_layers = one_draft_layer;
  two_draft_layers.draft = DraftShape{2, 0, 2};
  const double one = model.decode(layout, {16, 1000}, one_draft_layer).draft;
  CHECK(model.decode(layout, {16, 1000}, two_draft_layers).draft - one == approx(layer));
  // The pass is its layer, the 2h -> h fusion and the LM head, and the head is no dearer than the whole
  // one-layer model less its layer (which also holds the embedding).
  const double fusion = model.compute().gemm(16, 7168, 2 * 7168, DType::bf16, test::deepseek_v3().weights.block);
  CHECK(one > layer + fusion);
  CHECK(one < StepModel(one_layer, h200).decode(layout, {16, 1000}, {}).total + fusion);
}
