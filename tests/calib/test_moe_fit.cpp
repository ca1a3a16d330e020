#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "calib/moe_fit.hpp"

using namespace moeplan::calib;
using moeplan::ExpertPath;

TEST_CASE("a stage line is recovered from exact points, and a falling one becomes a constant") {
  const StageLine line = fit_stage_line({1, 16, 256, 4096}, {5e-6 + 1e-9, 5e-6 + 16e-9, 5e-6 + 256e-9, 5e-6 + 4096e-9});
  CHECK(line.fixed_seconds == approx(5e-6));
  CHECK(line.per_token_seconds == approx(1e-9));
  const StageLine flat = fit_stage_line({1, 2}, {4e-6, 3e-6});
  CHECK(flat.per_token_seconds == 0.0);
  // sum(1/t) / sum(1/t^2) for 4 and 3 us: (1/4 + 1/3) / (1/16 + 1/9) us = 3.36 us.
  CHECK(flat.fixed_seconds == approx(3.36e-6));
}

TEST_CASE("expected routing of two tokens over two slots, worked by hand") {
  // top-1 of 2 slots: each slot gets Binomial(2, 1/2) rows, reached with probability 3/4, one block when reached.
  const RoutingExpectation routed = expected_routing(2, 2, 1, 0);
  CHECK(routed.rows == approx(2.0));
  CHECK(routed.active_experts == approx(1.5));
  CHECK(routed.blocks == approx(1.5));
  // A fused shared slot takes every token: one more active expert and one more block.
  const RoutingExpectation fused = expected_routing(2, 2, 1, 1);
  CHECK(fused.rows == approx(4.0));
  CHECK(fused.active_experts == approx(2.5));
  CHECK(fused.blocks == approx(2.5));
  // 65 rows on one slot need two 64-row blocks, or one where the 65th rides with the first 64.
  CHECK(expected_routing(65, 1, 1, 0).blocks == approx(2.0));
  CHECK(expected_routing(65, 1, 1, 0, 8).blocks == approx(1.0));
  CHECK(expected_routing(73, 1, 1, 0, 8).blocks == approx(2.0));
}

TEST_CASE("expected routing agrees with sampled top-k routing") {
  // Second method: draw top_k distinct slots per token and count blocks and active slots directly.
  const int tokens = 300, slots = 16, top_k = 8, trials = 4000;
  std::mt19937 generator(7);
  std::vector<int> order(slots);
  std::iota(order.begin(), order.end(), 0);
  double blocks = 0, active = 0;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<int> rows(slots, 0);
    for (int token = 0; token < tokens; ++token) {
      std::shuffle(order.begin(), order.end(), generator);
      for (int pick = 0; pick < top_k; ++pick) ++rows[static_cast<std::size_t>(order[static_cast<std::size_t>(pick)])];
    }
    for (int count : rows) {
      blocks += (count + 63) / 64;
      active += count > 0 ? 1 : 0;
    }
  }
  const RoutingExpectation expected = expected_routing(tokens, slots, top_k, 0);
  CHECK(expected.blocks == approx(blocks / trials).epsilon(0.01));
  CHECK(expected.active_experts == approx(active / trials).epsilon(0.01));
}

TEST_CASE("grouped GEMM traffic per path, worked by hand") {
  Measurement layer;
  layer.family = Family::moe_layer;
  layer.dtype = "fp8_e4m3";
  // DeepSeek-V3 experts (H 7168, I 2048), 8 local slots and top-8: every token reaches every slot, plus the
  // fused shared expert: 4 tokens x 9 columns = 36 rows on 9 experts, one block each.
  layer.shape = {{"tokens", 4},  {"local_experts", 8}, {"top_k", 8},
                 {"columns", 9}, {"hidden", 7168},     {"intermediate", 2048}};
  const double activations_gate_up = 36.0 * (7168 + 2048) * 2, w13 = 4096.0 * 7168;
  const moeplan::ExpertStageWork streaming = grouped_work(layer, ExpertPath::streaming);
  CHECK(streaming.gate_up.flops == approx(2.0 * 36 * 4096 * 7168));
  CHECK(streaming.gate_up.bytes == approx(9 * w13 + activations_gate_up));
  CHECK(streaming.down.flops == approx(2.0 * 36 * 7168 * 2048));
  CHECK(streaming.down.bytes == approx(9 * w13 / 2 + activations_gate_up));
  // The library path reads each active expert's e4m3 weights once, one byte each; all 9 are active.
  const moeplan::ExpertStageWork library = grouped_work(layer, ExpertPath::library);
  CHECK(library.gate_up.bytes == approx(9 * w13 + activations_gate_up));
}

TEST_CASE("a measurement's riding rows take its experts' second passes away") {
  Measurement layer;
  layer.family = Family::moe_layer;
  layer.dtype = "fp8_e4m3";
  // 68 tokens on one slot, top-1: 68 rows, one 64-row block and a second of 4 rows, which rides with the first
  // where the kernel measured let up to 8 ride (riding_rows 8), and is a repeated pass of w13 where it did not
  // (a file without the key).
  layer.shape = {{"tokens", 68}, {"local_experts", 1}, {"top_k", 1},
                 {"columns", 1}, {"hidden", 7168},     {"intermediate", 2048}};
  CHECK(grouped_work(layer, ExpertPath::streaming).gate_up.repeat_bytes == approx(4096.0 * 7168));
  layer.shape["riding_rows"] = 8;
  CHECK(grouped_work(layer, ExpertPath::streaming).gate_up.repeat_bytes == 0.0);
  CHECK(grouped_work(layer, ExpertPath::streaming).down.repeat_bytes == 0.0);
}

TEST_CASE("an additive fit recovers the repeated blocks' share apart from the first pass's") {
  const RooflineReference reference{4.8e12, 989e12};
  // Every share at most 100 %: a term cannot run faster than its ceiling (fit_floored_relative).
  const moeplan::AdditiveCost truth{12e-6, 0.9, 0.6, 0.5};
  std::vector<moeplan::Work> work;
  std::vector<double> seconds;
  for (double experts : {8.0, 32.0, 256.0}) {
    // Rows per expert and the 64-row blocks they fill, so that rows and blocks vary apart.
    for (const auto& [rows_per_expert, blocks_per_expert] :
         std::vector<std::pair<double, double>>{{8, 1}, {40, 1}, {64, 1}, {80, 2}, {128, 2}, {150, 3}}) {
      const double rows = rows_per_expert * experts;
      const double expert_bytes = 4096.0 * 7168;
      work.push_back({2.0 * rows * 4096 * 7168, experts * expert_bytes + rows * 18432,
                      experts * (blocks_per_expert - 1.0) * expert_bytes});
      seconds.push_back(stage_time(truth, work.back(), reference));
    }
  }
  const moeplan::AdditiveCost fit = fit_additive(work, seconds, reference);
  CHECK(fit.floor_seconds == approx(12e-6));
  CHECK(fit.memory_efficiency == approx(0.9));
  CHECK(fit.compute_efficiency == approx(0.6));
  CHECK(fit.repeat_efficiency == approx(0.5));
  // Hand check: 8 experts at two blocks each (1024 rows), one repeated pass of each.
  const double expert_bytes = 4096.0 * 7168;
  const moeplan::Work point{2.0 * 1024 * 4096 * 7168, 8 * expert_bytes + 1024 * 18432, 8 * expert_bytes};
  CHECK(stage_time(fit, point, reference) ==
        approx(12e-6 + point.bytes / (4.8e12 * 0.9) + point.flops / (989e12 * 0.6) +
               point.repeat_bytes / (4.8e12 * 0.5)));
}

TEST_CASE("an additive fit recovers floor, bandwidth and compute shares from exact points") {
  const RooflineReference reference{4.8e12, 989e12};
  const moeplan::AdditiveCost truth{20e-6, 0.6, 0.4};
  std::vector<moeplan::Work> work;
  std::vector<double> seconds;
  for (double rows : {8.0, 64.0, 512.0, 4096.0}) {
    for (double experts : {1.0, 16.0, 64.0}) {
      work.push_back({2.0 * rows * 4096 * 7168, experts * 4096 * 7168 + rows * 18432});
      seconds.push_back(stage_time(truth, work.back(), reference));
    }
  }
  const moeplan::AdditiveCost fit = fit_additive(work, seconds, reference);
  CHECK(fit.floor_seconds == approx(20e-6));
  CHECK(fit.memory_efficiency == approx(0.6));
  CHECK(fit.compute_efficiency == approx(0.4));
  // Hand check of one point: 16 experts at 64 rows.
  const moeplan::Work point{2.0 * 64 * 4096 * 7168, 16.0 * 4096 * 7168 + 64 * 18432};
  CHECK(stage_time(fit, point, reference) ==
        approx(20e-6 + point.bytes / (4.8e12 * 0.6) + point.flops / (989e12 * 0.4)));
}

TEST_CASE("terms the points do not carry come out dropped (0), never as a vast share") {
  const RooflineReference reference{4.8e12, 989e12};
  const moeplan::AdditiveCost truth{15e-6, 0.85, 0.0, 0.0};  // a floor and bytes, no FLOPs or repeated-block cost
  std::vector<moeplan::Work> work;
  std::vector<double> seconds;
  for (const auto& [rows, experts, repeats] :
       std::vector<std::tuple<double, double, double>>{{8, 8, 0}, {64, 8, 0}, {512, 32, 16}, {4096, 64, 64}}) {
    work.push_back({2.0 * rows * 4096 * 7168, experts * 4096.0 * 7168, repeats * 4096.0 * 7168});
    seconds.push_back(stage_time(truth, work.back(), reference));
  }
  const moeplan::AdditiveCost fit = fit_additive(work, seconds, reference);
  CHECK(fit.floor_seconds == approx(15e-6));
  CHECK(fit.memory_efficiency == approx(0.85));
  CHECK(fit.compute_efficiency == 0.0);
  CHECK(fit.repeat_efficiency == 0.0);
}

TEST_CASE("a GEMM stage is fitted with its rows' quantization, timed apart or inside it") {
  // Second method: the same layers with each e4m3 quantization timed inside its GEMM's stage (earlier
  // sweeps) and as a stage of its own (later ones) must give one fit.
  const RooflineReference reference{4.8e12, 989e12};
  const moeplan::AdditiveCost gate_up_truth{10e-6, 0.8, 0.6}, down_truth{8e-6, 0.7, 0.6};
  std::vector<Measurement> inside, apart;
  const std::vector<std::pair<int, int>> points = {{1, 8}, {16, 8}, {64, 8}, {256, 32}, {1024, 256}, {64, 256}};
  for (const auto& [tokens, experts] : points) {
    Measurement layer;
    layer.family = Family::moe_layer;
    layer.label = "streaming";
    layer.dtype = "fp8_e4m3";
    layer.shape = {{"tokens", tokens},     {"local_experts", experts}, {"top_k", 8}, {"columns", 9}, {"hidden", 7168},
                   {"intermediate", 2048}, {"shared_intermediate", 0}};
    const moeplan::ExpertStageWork work = grouped_work(layer, ExpertPath::streaming);
    const double gate_up = stage_time(gate_up_truth, work.gate_up, reference);
    const double down = stage_time(down_truth, work.down, reference);
    const double quantize_hidden = 2e-6 + tokens * 1e-9, quantize_activation = 3e-6 + tokens * 2e-9;
    layer.stages = {{"routing", 5e-6}, {"align", 4e-6}, {"combine", 6e-6}};
    Measurement split = layer;
    layer.stages["gate_up"] = gate_up;
    layer.stages["down"] = down;
    split.stages["quantize_hidden"] = quantize_hidden;
    split.stages["gate_up"] = gate_up - quantize_hidden;
    split.stages["quantize_activation"] = quantize_activation;
    split.stages["down"] = down - quantize_activation;
    inside.push_back(layer);
    apart.push_back(split);
  }
  const MoeFit one = fit_moe(inside, reference), other = fit_moe(apart, reference);
  REQUIRE(one.streaming.has_value());
  REQUIRE(other.streaming.has_value());
  CHECK(one.streaming->gate_up.floor_seconds == approx(10e-6));
  CHECK(other.streaming->gate_up.floor_seconds == approx(one.streaming->gate_up.floor_seconds));
  CHECK(other.streaming->gate_up.memory_efficiency == approx(one.streaming->gate_up.memory_efficiency));
  CHECK(other.streaming->down.floor_seconds == approx(one.streaming->down.floor_seconds));
  CHECK(other.streaming->down.memory_efficiency == approx(one.streaming->down.memory_efficiency));
}
