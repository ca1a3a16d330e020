#include <doctest/doctest.h>

#include <algorithm>

#include "calib/sweep_plan.hpp"
#include "calibration_fixture.hpp"

using namespace moeplan;
using namespace moeplan::calib;

TEST_CASE("the Qwen3-235B shapes of [doc-004]: O [8192 -> 4096] and QKV [4096 -> 64 x 128 + 2 x 4 x 128]") {
  const std::vector<OtpShape> shapes = otp_shapes(test::qwen3_235b());
  REQUIRE(shapes.size() == 2);
  CHECK(shapes[0].label == "o_proj");
  CHECK(shapes[0].input_width == 8192);
  CHECK(shapes[0].output_width == 4096);
  CHECK(shapes[1].label == "qkv");
  CHECK(shapes[1].input_width == 4096);
  CHECK(shapes[1].output_width == 9216);
}

TEST_CASE("DeepSeek-V3's MLA has two head-split inputs: q_b from the 1536 query latent, kv_b from 512") {
  const std::vector<OtpShape> shapes = otp_shapes(test::deepseek_v3());
  REQUIRE(shapes.size() == 3);
  CHECK(shapes[0].input_width == 16384);  // 128 heads x v_head_dim 128
  CHECK(shapes[1].label == "qkv512");
  CHECK(shapes[1].output_width == 128 * (128 + 128));
  CHECK(shapes[2].label == "qkv1536");
  CHECK(shapes[2].output_width == 128 * (128 + 64));
}

TEST_CASE("the full sweep covers 1 KiB .. 1 GiB, every group size and the batches of [doc-004]") {
  const SweepPlan plan = sweep_plan(test::qwen3_235b(), 4, false);
  CHECK(plan.collective_bytes.size() == 21);
  CHECK(plan.collective_bytes.front() == 1024);
  CHECK(plan.collective_bytes.back() == 1073741824);
  CHECK(plan.group_sizes == std::vector<int>{2, 3, 4});
  CHECK(plan.otp_tokens.front() == 1);
  CHECK(plan.otp_tokens.back() == 256);
  // Qwen3 128 experts at EP 16, 8, 4, 2 and 1; EP 64 and 32 leave 2 and 4 slots, fewer than top-8.
  CHECK(plan.moe_local_experts == std::vector<std::int64_t>{8, 16, 32, 64, 128});
  // The O projection row-split by 4 (OTP X1's matmul) is among the GEMMs: [4096 x 2048].
  CHECK(std::any_of(plan.gemms.begin(), plan.gemms.end(),
                    [](const GemmShape& shape) { return shape.n == 4096 && shape.k == 2048; }));
  CHECK(sweep_plan(test::qwen3_235b(), 1, false).group_sizes.empty());
}

TEST_CASE("--quick keeps at least three expert slices so one can be held out") {
  const SweepPlan plan = sweep_plan(test::deepseek_v3(), 2, true);
  CHECK(plan.moe_local_experts == std::vector<std::int64_t>{16, 64, 256});
  // DeepSeek-V3 (8 routed + 1 fused shared per token): at 1024 tokens E_local 16 and 64 get 9216 / 17 = 542
  // and 9216 / 65 = 142 rows per slot, both past the streaming kernel's 128 (lib/gpu/moe_layer.hpp); at
  // 4096, E_local 256 gets 36864 / 257 = 143, so the library path is timed on every slice and the fit
  // keeps three points a variant (E_local 16 at 1024 and 4096, 256 at 4096) with 64 held out.
  CHECK(plan.moe_tokens == std::vector<std::int64_t>{1, 16, 256, 1024, 4096});
  // Every slice's largest load is past the switch: rows per slot = tokens x 9 / (E_local + 1).
  const double fp8_streaming_most_rows = 128;
  for (const std::int64_t local : plan.moe_local_experts) {
    CAPTURE(local);
    const double most_rows = static_cast<double>(plan.moe_tokens.back()) * 9 / static_cast<double>(local + 1);
    CHECK(most_rows > fp8_streaming_most_rows);
  }
  CHECK(static_cast<double>(plan.moe_tokens.back()) * 9 / 257 == doctest::Approx(143.4).epsilon(0.001));
  CHECK(plan.moe.fp8);
  CHECK(plan.moe.grouped_router);
  CHECK(plan.collective_bytes.back() == 64 * 1024 * 1024);
}
