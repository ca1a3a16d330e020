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

TEST_CASE("measured ceilings put the device's copy and GEMM rates in place of the datasheet's, term by term") {
  const Calibration calibration = test::small_calibration();
  const Hardware h200 = hardware_preset("H200", "", "");
  Efficiency roofline;
  roofline.gemm_compute = roofline.fp8_compute = roofline.fp4_compute = roofline.gemm_memory = 1.0;
  roofline.attention_compute = roofline.attention_memory = roofline.elementwise_memory = 1.0;
  const CalibratedModels all = measured_ceilings(calibration, h200, "cal.json", roofline, CeilingTerms{});
  // The fixture's device copies 4.25 TB/s of the H200's 4.8 TB/s and multiplies BF16 at 700 of 989 TFLOP/s.
  CHECK(all.efficiency.gemm_memory == approx(4.25 / 4.8));
  CHECK(all.efficiency.attention_memory == approx(4.25 / 4.8));
  CHECK(all.efficiency.elementwise_memory == approx(4.25 / 4.8));
  CHECK(all.efficiency.gemm_compute == approx(700.0 / 989.0));
  CHECK(all.efficiency.fp8_compute == approx(700.0 / 989.0));
  // Floors: the dense GEMM fit's 5 us; no MoE fit, so the router keeps the base's.
  CHECK(all.efficiency.gemm_floor == approx(5e-6));
  CHECK(all.efficiency.routing_floor == approx(roofline.routing_floor));
  CHECK_FALSE(all.efficiency.expert_paths.calibrated);
  CHECK(all.efficiency.source ==
        "measured ceilings (memory,compute,collectives,floors): cal.json (measured on 2x NVIDIA H200)");
  // Memory alone: compute stays at the roofline's 1.
  const CeilingTerms memory_only = parse_ceiling_terms("memory", "test", "terms");
  const CalibratedModels memory = measured_ceilings(calibration, h200, "cal.json", roofline, memory_only);
  CHECK(memory.efficiency.gemm_memory == approx(4.25 / 4.8));
  CHECK(memory.efficiency.gemm_compute == 1.0);
  CHECK(memory.efficiency.gemm_floor == roofline.gemm_floor);
  CHECK_FALSE(memory.collectives.calibrated());
}

TEST_CASE("a group larger than the calibration measured gets the datasheet curve scaled as the largest measured one") {
  const Calibration calibration = test::small_calibration();
  const Hardware h200 = hardware_preset("H200", "", "");
  const CalibratedModels models = measured_ceilings(calibration, h200, "cal.json", Efficiency{}, CeilingTerms{});
  // Datasheet all-gather on H200 ([nccl-tuning] ring, cost/collectives.hpp): floor 10 us + 0.6 us per step,
  // line 8.4 us + 3.4 us per step, n - 1 steps. 2 ranks: floor 10.6 us, line 11.8 us; 4 ranks: 11.8 us
  // and 18.6 us. Measured at 2 ranks: floor 9.7 us, line 15 us, 300 GB/s.
  // 4 ranks, 64 KiB: 48 KiB on the wire, under the measured 128 KiB floor: 11.8 x 9.7 / 10.6 us.
  CHECK(models.collectives.time(Collective::all_gather, {4, 4}, 65536) == approx(11.8e-6 * 9.7 / 10.6));
  // 4 ranks, 1 GiB: 768 MiB on the wire at the measured 300 GB/s (the datasheet's bandwidth scaled to it)
  // after 18.6 x 15 / 11.8 us.
  CHECK(models.collectives.time(Collective::all_gather, {4, 4}, 1073741824.0) ==
        approx(18.6e-6 * 15.0 / 11.8 + 805306368.0 / 300e9));
  // The measured size itself keeps its curve; past the 8-GPU NVLink domain the datasheet's stays.
  CHECK(models.collectives.time(Collective::all_gather, {2, 2}, 65536) == approx(9.7e-6));
  const CollectiveModel defaults(h200);
  CHECK(models.collectives.curve(Collective::all_gather, Fabric::intra_node, 9).floor_time ==
        approx(defaults.curve(Collective::all_gather, Fabric::intra_node, 9).floor_time));
  CHECK(models.collectives.curve(Collective::all_gather, Fabric::inter_node, 2).floor_time ==
        approx(defaults.curve(Collective::all_gather, Fabric::inter_node, 2).floor_time));
}

TEST_CASE("ceiling terms are named in a list, and an unknown one is refused naming the option") {
  const CeilingTerms terms = parse_ceiling_terms("floors,collectives", "command line", "--calibration-terms");
  CHECK(terms.floors);
  CHECK(terms.collectives);
  CHECK_FALSE(terms.memory);
  CHECK(ceiling_terms_name(terms) == "collectives,floors");
  CHECK(ceiling_terms_name(parse_ceiling_terms("none", "command line", "--calibration-terms")) == "none");
  CHECK_THROWS_WITH_AS(parse_ceiling_terms("memory,hbm", "command line", "--calibration-terms"),
                       doctest::Contains("command line: --calibration-terms: expected"), InputError);
}
