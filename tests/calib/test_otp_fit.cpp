#include <doctest/doctest.h>

#include "calibration_fixture.hpp"
#include "relative_approx.hpp"

#include "calib/calibrated_models.hpp"
#include "calib/fit_calibration.hpp"
#include "cost/otp.hpp"

using namespace moeplan;

namespace {

calib::Measurement otp_x1(std::int64_t input_width, std::int64_t output_width, std::int64_t tokens) {
  calib::Measurement measurement;
  measurement.family = calib::Family::otp;
  measurement.kind = "x1";
  measurement.ranks = 4;
  measurement.shape = {{"input_width", input_width}, {"output_width", output_width}, {"tokens", tokens}};
  return measurement;
}

// X1 over 4 ranks priced stage by stage as the fit prices it before any adjustment: no curve or GEMM
// measured, so the default curves and the datasheet roofline at the device's copy rate.
OtpSchemeCost unadjusted_x1(const calib::Calibration& calibration, const calib::Measurement& measurement) {
  const Hardware h200 = hardware_preset("H200", "test", "hardware");
  const calib::CalibratedModels models = calib::calibrated_models(calibration, h200, "test");
  const OtpProjection projection{measurement.dimension("input_width"), measurement.dimension("output_width"),
                                 DType::bf16, BlockShape{}};
  return otp_scheme_cost(OtpScheme::x1, projection, static_cast<double>(measurement.dimension("tokens")), {4, 4},
                         models.collectives, ComputeModel(h200, models.efficiency));
}

}  // namespace

TEST_CASE("the OTP fit gives back the overhead in seconds and each stage's scale in its own field") {
  calib::Calibration calibration = test::small_calibration();
  calibration.measurements.clear();
  calibration.coefficients = {};
  calibration.coefficients.reference = {4.8e12, 989e12};  // H200's datasheet, as the fit takes it
  const Hardware h200 = hardware_preset("H200", "test", "hardware");
  for (const auto& [input, output] : {std::pair{2048, 1024}, {4096, 4096}, {8192, 4096}, {16384, 2048}}) {
    for (std::int64_t tokens : {1, 16, 128, 1024, 8192}) {
      calib::Measurement measurement = otp_x1(input, output, tokens);
      // Measured: 4 us + 1.5 x the collectives + 2 x the reorder + 1.25 x the GEMM's datasheet seconds.
      const OtpSchemeCost cost = unadjusted_x1(calibration, measurement);
      const double matmul = cost.matmul_work.bytes / h200.hbm_bandwidth + cost.matmul_work.flops / h200.bf16_flops;
      measurement.seconds =
          4e-6 + 1.5 * (cost.first_collective + cost.second_collective) + 2.0 * cost.rearrange + 1.25 * matmul;
      calibration.measurements.push_back(measurement);
    }
  }
  calib::fit_calibration(calibration);
  REQUIRE(calibration.coefficients.otp_x1.has_value());
  CHECK_FALSE(calibration.coefficients.otp_x2.has_value());
  const PathAdjustment& fit = *calibration.coefficients.otp_x1;
  CHECK(fit.calibrated);
  CHECK(fit.overhead_seconds == approx(4e-6).epsilon(1e-6));
  CHECK(fit.collective_scale == approx(1.5).epsilon(1e-6));
  CHECK(fit.copy_scale == approx(2.0).epsilon(1e-6));
  CHECK(fit.memory_scale == approx(1.25).epsilon(1e-6));
  CHECK(fit.compute_scale == approx(1.25).epsilon(1e-6));
  // The shape held out of the fit (4096 -> 4096) is priced as it was measured.
  REQUIRE(calibration.heldout.otp.has_value());
  CHECK(*calibration.heldout.otp < 1e-6);
}
