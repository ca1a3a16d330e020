#include <doctest/doctest.h>

#include "calib/moe_fit.hpp"

using namespace moeplan::calib;

TEST_CASE("a stage line is recovered from exact points, and a falling one becomes a constant") {
  const StageLine line = fit_stage_line({1, 16, 256, 4096}, {5e-6 + 1e-9, 5e-6 + 16e-9, 5e-6 + 256e-9, 5e-6 + 4096e-9});
  CHECK(line.fixed_seconds == doctest::Approx(5e-6));
  CHECK(line.per_token_seconds == doctest::Approx(1e-9));
  const StageLine flat = fit_stage_line({1, 2}, {4e-6, 3e-6});
  CHECK(flat.per_token_seconds == 0.0);
  // sum(1/t) / sum(1/t^2) for 4 and 3 us: (1/4 + 1/3) / (1/16 + 1/9) us = 3.36 us.
  CHECK(flat.fixed_seconds == doctest::Approx(3.36e-6));
}

TEST_CASE("grouped GEMM traffic: the active experts' weights plus the activations, worked by hand") {
  Measurement layer;
  layer.family = Family::moe_layer;
  layer.dtype = "fp8_e4m3";
  // DeepSeek-V3 experts (H 7168, I 2048): 4 tokens x 9 columns = 36 rows over 20 active experts.
  layer.shape = {{"tokens", 4}, {"rows", 36}, {"active_experts", 20}, {"hidden", 7168}, {"intermediate", 2048}};
  const GroupedWork work = grouped_work(layer);
  CHECK(work.gate_up_flops == doctest::Approx(2.0 * 36 * 4096 * 7168));
  // 20 x 4096 x 7168 one-byte weights + 36 x (7168 + 2048) x 2 activation bytes.
  CHECK(work.gate_up_bytes == doctest::Approx(587202560.0 + 663552.0));
  CHECK(work.down_flops == doctest::Approx(2.0 * 36 * 7168 * 2048));
  CHECK(work.down_bytes == doctest::Approx(293601280.0 + 663552.0));
}
