#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "calib/calibrated_models.hpp"
#include "calib/calibration_json.hpp"
#include "calib/fit_calibration.hpp"
#include "calibration_fixture.hpp"
#include "cost/compute.hpp"

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
  CHECK(models.efficiency.gemm_memory == approx(1.10));
  CHECK(models.efficiency.gemm_compute == approx(1.44));
  // The dense GEMM sweep's floor is the GEMMs'; other kernels keep the launch floor.
  CHECK(models.efficiency.gemm_floor == approx(5e-6));
  CHECK(models.efficiency.kernel_floor == approx(Efficiency{}.kernel_floor));
  // 4.25 TB/s copy over 2.4 TB/s.
  CHECK(models.efficiency.elementwise_memory == approx(4.25 / 2.4));
  CHECK(models.efficiency.calibrated);
  CHECK(models.efficiency.source == "calibrated: cal.json (measured on 2x NVIDIA H200)");
}

TEST_CASE("the measured curve replaces the default one for its group size only") {
  const Calibration calibration = test::small_calibration();
  const Hardware h200 = hardware_preset("H200", "", "");
  const CalibratedModels models = calibrated_models(calibration, h200, "cal.json");
  CHECK(models.collectives.calibrated());
  // 64 KiB all-gather on 2 ranks moves 32 KiB on the wire: under the 128 KiB floor, so 9.7 us.
  CHECK(models.collectives.time(Collective::all_gather, {2, 2}, 65536) == approx(9.7e-6));
  // 1 GiB moves 512 MiB: 15 us + 536870912 / 300e9 s.
  CHECK(models.collectives.time(Collective::all_gather, {2, 2}, 1073741824.0) == approx(15e-6 + 536870912.0 / 300e9));
  const CollectiveModel defaults(h200);
  CHECK(models.collectives.time(Collective::all_gather, {4, 4}, 65536) ==
        approx(defaults.time(Collective::all_gather, {4, 4}, 65536)));
}

TEST_CASE("plan-deploy prices the MoE stages as the fit predicts them, from a committed calibration") {
  // Second method: the cost model's grouped GEMMs (cost/compute.cpp) against the fit's own prediction
  // (calib/moe_fit.cpp) for every measured fused layer; they differ only in how routing is drawn
  // (distinct top-k picks per token in the sweep, independent rows in the cost model).
  calib::Calibration calibration =
      calib::read_calibration(std::string(MOEPLAN_SOURCE_DIR) + "/validation/data/calibration_2xh200.json");
  calib::fit_calibration(calibration);
  const Hardware reference = calib::reference_hardware(calibration);
  const ComputeModel compute(reference, calib::calibrated_models(calibration, reference, "test").efficiency);
  const calib::MoeFit& fit = *calibration.coefficients.moe;
  int compared = 0;
  for (const calib::Measurement& layer : calibration.measurements) {
    if (layer.family != calib::Family::moe_layer || layer.kind != "fused_shared") continue;
    const auto tokens = static_cast<double>(layer.dimension("tokens"));
    ExpertLoad load;
    load.pairs = tokens * static_cast<double>(layer.dimension("top_k"));
    load.tokens = tokens;
    load.experts = static_cast<double>(layer.dimension("local_experts"));
    load.shared_pairs = tokens;
    load.shared_experts = 1;
    load.hidden = layer.dimension("hidden");
    load.intermediate = layer.dimension("intermediate");
    load.dtype = DType::fp8_e4m3;
    const ExpertStageWork work = calib::grouped_work(layer, fit.path_for(layer));
    const calib::PathFit& stages = fit.path_fit(fit.path_for(layer));
    const double predicted = calib::stage_time(stages.gate_up, work.gate_up, calibration.coefficients.reference) +
                             calib::stage_time(stages.down, work.down, calibration.coefficients.reference);
    const ExpertTimes priced = compute.experts(load);
    CHECK(priced.total() == approx(predicted).epsilon(0.05));
    ++compared;
  }
  CHECK(compared == 78);  // 6 expert slices x 13 token counts
}
