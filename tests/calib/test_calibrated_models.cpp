#include <doctest/doctest.h>

#include "calib/calibrated_models.hpp"
#include "calibration_fixture.hpp"

using namespace moeplan;
using namespace moeplan::calib;

TEST_CASE("device names map to their datasheet presets") {
  CHECK(preset_for_device("NVIDIA H200")->name == "H200");
  CHECK(preset_for_device("NVIDIA H100 80GB HBM3")->name == "H100-SXM");
  CHECK_FALSE(preset_for_device("NVIDIA A100-SXM4-80GB").has_value());
}

TEST_CASE("fitted fractions are rescaled to the scenario's ceilings, so predicted times stay measured ones") {
  const Calibration calibration = test::small_calibration();
  Hardware target = hardware_preset("H200", "", "");
  target.hbm_bandwidth = 2.4e12;  // half the reference's 4.8 TB/s: the fraction doubles
  target.bf16_flops = 494.5e12;   // half of 989
  const CalibratedModels models = calibrated_models(calibration, target, "cal.json");
  CHECK(models.efficiency.gemm_memory == doctest::Approx(1.10));
  CHECK(models.efficiency.gemm_compute == doctest::Approx(1.44));
  CHECK(models.efficiency.kernel_floor == doctest::Approx(5e-6));
  // 4.25 TB/s copy over 2.4 TB/s.
  CHECK(models.efficiency.elementwise_memory == doctest::Approx(4.25 / 2.4));
  CHECK(models.efficiency.calibrated);
  CHECK(models.efficiency.source == "calibrated: cal.json (measured on 2x NVIDIA H200)");
}

TEST_CASE("the measured curve replaces the default one for its group size only") {
  const Calibration calibration = test::small_calibration();
  const Hardware h200 = hardware_preset("H200", "", "");
  const CalibratedModels models = calibrated_models(calibration, h200, "cal.json");
  CHECK(models.collectives.calibrated());
  // 64 KiB all-gather on 2 ranks moves 32 KiB on the wire: under the 128 KiB floor, so 9.7 us.
  CHECK(models.collectives.time(Collective::all_gather, {2, 2}, 65536) == doctest::Approx(9.7e-6));
  // 1 GiB moves 512 MiB: 15 us + 536870912 / 300e9 s.
  CHECK(models.collectives.time(Collective::all_gather, {2, 2}, 1073741824.0) ==
        doctest::Approx(15e-6 + 536870912.0 / 300e9));
  const CollectiveModel defaults(h200);
  CHECK(models.collectives.time(Collective::all_gather, {4, 4}, 65536) ==
        doctest::Approx(defaults.time(Collective::all_gather, {4, 4}, 65536)));
}
