#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "cost/otp.hpp"
#include "spec/hardware.hpp"

using namespace moeplan;

namespace {
// [doc-004]: Qwen3-235B O [8192 -> 4096] and QKV [4096 -> 64*128 + 2*4*128 = 9216], BF16.
const OtpProjection kOutput{8192, 4096, DType::bf16, {}};
const OtpProjection kQkv{4096, 9216, DType::bf16, {}};

struct Models {
  Hardware hardware = hardware_preset("Ascend-910B", "test", "hardware");
  CollectiveModel collectives{hardware};
  ComputeModel compute{hardware, Efficiency{}};
};
}  // namespace

TEST_CASE("the volumes of [doc-004], worked by hand") {
  // X1 = bs(h1(OTP-1)/OTP + h2(OTP-1)) = 8 (8192 x 3/4 + 4096 x 3) = 8 (6144 + 12288)
  CHECK(otp_volume(OtpScheme::x1, 8, 8192, 4096, 4) == approx(147456));
  // X2 = bs(h1(OTP-1) + h2(OTP-1)/OTP) = 8 (8192 x 3 + 4096 x 3/4) = 8 (24576 + 3072)
  CHECK(otp_volume(OtpScheme::x2, 8, 8192, 4096, 4) == approx(221184));
  // QKV at bs 48, OTP 2: X1 = 48 (2048 + 9216), X2 = 48 (4096 + 4608)
  CHECK(otp_volume(OtpScheme::x1, 48, 4096, 9216, 2) == approx(540672));
  CHECK(otp_volume(OtpScheme::x2, 48, 4096, 9216, 2) == approx(417792));
  CHECK(otp_volume(OtpScheme::x1, 48, 4096, 9216, 1) == 0.0);
}

TEST_CASE("the volume rule of [doc-004]: down-projection X1, up-projection X2") {
  CHECK(otp_volume_rule(8192, 4096) == OtpScheme::x1);
  CHECK(otp_volume_rule(4096, 9216) == OtpScheme::x2);
  CHECK(otp_volume_rule(4096, 4096) == OtpScheme::x1);
}

TEST_CASE("the collectives of each scheme move exactly the volume of [doc-004]") {
  const Models models;
  for (std::int64_t otp : {2, 4, 8}) {
    for (double tokens : {8.0, 48.0}) {
      const Group group{otp, 8};
      for (OtpScheme scheme : {OtpScheme::x1, OtpScheme::x2}) {
        for (const OtpProjection& projection : {kOutput, kQkv}) {
          const OtpSchemeCost cost =
              otp_scheme_cost(scheme, projection, tokens, group, models.collectives, models.compute);
          const double elements = otp_volume(scheme, tokens, projection.input_width, projection.output_width, otp);
          CHECK(cost.volume_bytes == approx(2.0 * elements));
        }
      }
    }
  }
}

TEST_CASE("both schemes read 1/OTP of the weights; only their activation bytes differ") {
  const Models models;
  const OtpChoice choice = choose_otp_scheme(kOutput, 48, {4, 8}, models.collectives, models.compute);
  CHECK(choice.x1.matmul == approx(choice.x2.matmul).epsilon(0.1));
  const double whole = models.compute.gemm(48, 4096, 8192, DType::bf16, {});
  CHECK(choice.x1.matmul < whole);
}

TEST_CASE("the choice is by time; the volume rule is reported beside it") {
  const Models models;
  const OtpChoice output = choose_otp_scheme(kOutput, 48, {4, 8}, models.collectives, models.compute);
  CHECK(output.by_volume == OtpScheme::x1);
  CHECK(output.chosen == (output.x1.total() <= output.x2.total() ? OtpScheme::x1 : OtpScheme::x2));

  // A slow measured reduce-scatter makes X1 the slower scheme although it moves fewer bytes.
  CollectiveModel slow_reduce_scatter(models.hardware);
  slow_reduce_scatter.set_curve({Collective::reduce_scatter, Fabric::intra_node, 4, 500e-6, 1e9, 500e-6, 1e9, 1e9});
  const OtpChoice flipped = choose_otp_scheme(kOutput, 48, {4, 8}, slow_reduce_scatter, models.compute);
  CHECK(flipped.chosen == OtpScheme::x2);
  CHECK(flipped.by_volume == OtpScheme::x1);
  CHECK(flipped.latency_disagrees());
}

TEST_CASE("a calibrated OTP path adds its overhead, scales its stages and prices the GEMM term by term") {
  const Models models;
  const Group group{4, 8};
  const OtpSchemeCost plain = otp_scheme_cost(OtpScheme::x1, kOutput, 48, group, models.collectives, models.compute);
  Efficiency calibrated;
  calibrated.otp_x1 = {true, 5e-6, 1.5, 2.0, 1.25, 2.5};
  const ComputeModel compute(models.hardware, calibrated);
  const OtpSchemeCost cost = otp_scheme_cost(OtpScheme::x1, kOutput, 48, group, models.collectives, compute);
  CHECK(cost.overhead == approx(5e-6));
  CHECK(cost.first_collective == approx(1.5 * plain.first_collective));
  CHECK(cost.second_collective == approx(1.5 * plain.second_collective));
  // The element-wise reorder under a calibrated efficiency set: its own price, doubled.
  const OtpSchemeCost reorder = otp_scheme_cost(OtpScheme::x1, kOutput, 48, group, models.collectives,
                                                ComputeModel(models.hardware, Efficiency{}));
  CHECK(cost.rearrange == approx(2.0 * reorder.rearrange));
  // X1's GEMM on 4 x 48 rows of [4096 x 8192/4]: 2 m n k FLOPs, weights + activations in and out in bf16.
  const double rows = 4 * 48, flops = 2.0 * rows * 4096 * 2048, bytes = 4096.0 * 2048 * 2 + rows * (4096 + 2048) * 2;
  CHECK(cost.matmul_work.flops == approx(flops));
  CHECK(cost.matmul_work.bytes == approx(bytes));
  CHECK(cost.matmul == approx(1.25 * bytes / models.hardware.hbm_bandwidth + 2.5 * flops / models.hardware.bf16_flops));
  CHECK(cost.total() ==
        approx(cost.rearrange + cost.first_collective + cost.second_collective + cost.overhead + cost.matmul));
  // The other scheme keeps its uncalibrated price.
  CHECK(otp_scheme_cost(OtpScheme::x2, kOutput, 48, group, models.collectives, compute).total() ==
        approx(otp_scheme_cost(OtpScheme::x2, kOutput, 48, group, models.collectives, models.compute).total()));
}
