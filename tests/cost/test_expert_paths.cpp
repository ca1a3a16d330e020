#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <cmath>

#include "cost/compute.hpp"
#include "cost/expert_routing.hpp"
#include "spec/hardware.hpp"

using namespace moeplan;

namespace {

Efficiency calibrated_paths() {
  Efficiency efficiency;
  efficiency.expert_paths.calibrated = true;
  efficiency.expert_paths.streaming_gate_up = {10e-6, 0.5, 0.25, 2.0};
  efficiency.expert_paths.streaming_down = {8e-6, 0.5, 0.25, 2.0};
  efficiency.expert_paths.library_gate_up = {100e-6, 0.8, 0.7};
  efficiency.expert_paths.library_down = {50e-6, 0.8, 0.7};
  efficiency.expert_paths.streaming_max_rows_per_slot = 192;
  return efficiency;
}

// DeepSeek-V3 experts (H 7168, I 2048) in FP8 e4m3, no block scales, spread over `experts` slots.
ExpertLoad fp8_load(double pairs, double experts) {
  ExpertLoad load;
  load.pairs = pairs;
  load.experts = experts;
  load.hidden = 7168;
  load.intermediate = 2048;
  load.dtype = DType::fp8_e4m3;
  return load;
}

}  // namespace

TEST_CASE("expected blocks and reach of one slot, worked by hand") {
  // Binomial(8, 1/8): reached with 1 - (7/8)^8; 8 rows never fill a second block.
  const SlotExpectation slot = expected_slot(8, 1.0 / 8);
  CHECK(slot.reached == approx(1.0 - std::pow(7.0 / 8.0, 8)));
  CHECK(slot.blocks == approx(slot.reached));
  // Certain rows: 130 rows are three blocks.
  CHECK(expected_slot(130, 1.0).blocks == approx(3.0));
  CHECK(expected_slot(0, 0.5).blocks == 0.0);
  // 100000 rows at p = 1/2: spread far wider than a block, X mod 64 is uniform, so with X = 64 q + r
  // E[ceil(X / 64)] = E[X] / 64 - E[r] / 64 + P(r > 0) = 781.25 - 31.5 / 64 + 63 / 64 = 781.742.
  const SlotExpectation wide = expected_slot(100000, 0.5);
  CHECK(wide.blocks == approx(781.25 + 31.5 / 64).epsilon(1e-5));
  CHECK(wide.reached == approx(1.0));
  // With up to 8 riding rows a last block of r = 1 .. 8 rows runs no tile: 8 / 64 of a block less.
  CHECK(expected_slot(100000, 0.5, 8).blocks == approx(781.25 + 31.5 / 64 - 8.0 / 64).epsilon(1e-5));
  CHECK(expected_slot(72, 1.0, 8).blocks == approx(1.0));
  CHECK(expected_slot(130, 1.0, 8).blocks == approx(2.0));
}

TEST_CASE("a calibrated light load takes the streaming path, priced term by term") {
  const Hardware h200 = hardware_preset("H200", "test", "hardware");
  const ComputeModel model(h200, calibrated_paths());
  // 8 rows over 8 experts: 8 (1 - (7/8)^8) experts streamed once each.
  const double passes = 8.0 * (1.0 - std::pow(7.0 / 8.0, 8));
  const double gate_up_bytes = passes * 4096.0 * 7168 + 8.0 * (7168 + 2048) * 2;
  const double gate_up_flops = 2.0 * 8 * 4096 * 7168;
  const ExpertTimes times = model.experts(fp8_load(8, 8));
  CHECK(times.gate_up ==
        approx(10e-6 + gate_up_bytes / (h200.hbm_bandwidth * 0.5) + gate_up_flops / (h200.bf16_flops * 0.25)));
  CHECK(times.activation == 0.0);  // fused into the gate-up stage the fit timed
  const double down_bytes = passes * 7168.0 * 2048 + 8.0 * (2048 + 7168) * 2;
  CHECK(times.down ==
        approx(8e-6 + down_bytes / (h200.hbm_bandwidth * 0.5) + 2.0 * 8 * 7168 * 2048 / (h200.bf16_flops * 0.25)));
}

TEST_CASE("a streamed expert's later blocks are priced at the repeat share, its first at the HBM share") {
  const Hardware h200 = hardware_preset("H200", "test", "hardware");
  const ComputeModel model(h200, calibrated_paths());
  // 768 rows on 8 experts (96 per slot, under 192): Binomial(768, 1/8) rows a slot (mean 96, sd 9.2),
  // every slot reached and more than 3 sd inside (64, 128], so two blocks each: one first pass and one
  // repeated pass of every expert's e4m3 weights.
  const SlotExpectation slot = expected_slot(768, 1.0 / 8);
  CHECK(slot.reached == approx(1.0));
  CHECK(slot.blocks == approx(2.0).epsilon(1e-3));
  const double first_bytes = 8.0 * 4096 * 7168 + 768.0 * (7168 + 2048) * 2;
  const double repeat_bytes = 8.0 * (slot.blocks - 1.0) * 4096 * 7168;
  const double flops = 2.0 * 768 * 4096 * 7168;
  CHECK(model.experts(fp8_load(768, 8)).gate_up ==
        approx(10e-6 + first_bytes / (h200.hbm_bandwidth * 0.5) + flops / (h200.bf16_flops * 0.25) +
               repeat_bytes / (h200.hbm_bandwidth * 2.0)));
  // A kernel calibrated with 8 riding rows repeats an expert's pass only past 72 rows: 65 .. 72 of them,
  // 2.6 sd under the mean, keep one pass.
  Efficiency riding = calibrated_paths();
  riding.expert_paths.streaming_riding_rows = 8;
  const double riding_blocks = expected_slot(768, 1.0 / 8, 8).blocks;
  CHECK(riding_blocks < slot.blocks);
  CHECK(ComputeModel(h200, riding).experts(fp8_load(768, 8)).gate_up ==
        approx(10e-6 + first_bytes / (h200.hbm_bandwidth * 0.5) + flops / (h200.bf16_flops * 0.25) +
               8.0 * (riding_blocks - 1.0) * 4096 * 7168 / (h200.hbm_bandwidth * 2.0)));
}

TEST_CASE("past the switch the library path reads each active expert's FP8 weights once") {
  const Hardware h200 = hardware_preset("H200", "test", "hardware");
  const ComputeModel model(h200, calibrated_paths());
  // 2048 rows on 8 experts (256 per slot, above 192): every expert active, its e4m3 weights read once
  // (one byte each; four 64-row blocks would have streamed them four times).
  const double gate_up_bytes = 8.0 * 4096 * 7168 + 2048.0 * (7168 + 2048) * 2;
  const double gate_up_flops = 2.0 * 2048 * 4096 * 7168;
  CHECK(model.experts(fp8_load(2048, 8)).gate_up ==
        approx(100e-6 + gate_up_bytes / (h200.hbm_bandwidth * 0.8) + gate_up_flops / (h200.bf16_flops * 0.7)));
}

TEST_CASE("a token reaches a local expert at most once: distinct top-k picks, not independent rows") {
  ExpertLoad load;
  load.pairs = 8;
  load.experts = 8;
  // One token's 8 picks as independent rows reach 8 (1 - (7/8)^8) = 5.25 experts on average...
  CHECK(load.active() == approx(8.0 * (1.0 - std::pow(7.0 / 8.0, 8))));
  // ...but top-8 picks are distinct: all 8 local experts, each with exactly one row.
  load.tokens = 1;
  CHECK(load.active() == approx(8.0));
  // 64 tokens x 2 picks over 8 experts: each expert gets a token with probability 2/8, so
  // Binomial(64, 1/4) rows, reached with probability 1 - (3/4)^64.
  load.pairs = 128;
  load.tokens = 64;
  CHECK(load.routed_trials() == 64.0);
  CHECK(load.routed_probability() == approx(0.25));
  CHECK(load.active() == approx(8.0 * (1.0 - std::pow(0.75, 64))));
}
