// A calibration mapped onto the calibrate report: a hand-made one point by point, and the 2 x H200
// measurement file against counts worked out from the file and the held-out rule (every third shape,
// sorted, from the second, never the last).
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include "calib/calibration_json.hpp"
#include "calib/fit_calibration.hpp"
#include "markup.hpp"
#include "report/calibration_report_input.hpp"

namespace moeplan::report {

namespace {

const std::string kTwoH200 = std::string(MOEPLAN_SOURCE_DIR) + "/validation/data/calibration_2xh200.json";

calib::Measurement gemm(std::int64_t m, std::int64_t n, std::int64_t k, double seconds) {
  calib::Measurement measurement;
  measurement.family = calib::Family::gemm;
  measurement.kind = "o_proj";
  measurement.shape = {{"m", m}, {"n", n}, {"k", k}};
  measurement.seconds = seconds;
  return measurement;
}

calib::Calibration fitted_two_h200() {
  calib::Calibration calibration = calib::read_calibration(kTwoH200);
  calib::fit_calibration(calibration);
  return calibration;
}

struct FamilyCounts {
  int charts = 0, curves = 0, points = 0, held_out = 0;
};

std::map<std::string, FamilyCounts> counts_by_family(const CalibrationReportInput& input) {
  std::map<std::string, FamilyCounts> counts;
  for (const CalibrationFamily& family : input.families) {
    FamilyCounts& count = counts[family.name];
    ++count.charts;
    count.curves += static_cast<int>(family.curves.size());
    for (const CalibrationCurve& curve : family.curves) {
      count.points += static_cast<int>(curve.points.size());
      for (const CurvePoint& point : curve.points) count.held_out += point.held_out ? 1 : 0;
    }
  }
  return counts;
}

const CalibrationFamily& chart_named(const CalibrationReportInput& input, const char* name, const char* part) {
  for (const CalibrationFamily& family : input.families) {
    if (family.name == name && family.part == part) return family;
  }
  FAIL("no chart " << name << ", " << part);
  return input.families.front();
}

}  // namespace

TEST_CASE("a hand-made calibration maps to microseconds, sorted by x, skipping what the fit did not predict") {
  calib::Calibration calibration;
  calibration.measured_on = "1x NVIDIA H200";
  calibration.model.name = "Test-MoE";
  calibration.measurements = {gemm(4, 8, 16, 3e-6), gemm(1, 8, 16, 2e-6), gemm(1, 32, 16, 5e-6)};
  calibration.fitted = {{0, 3.3e-6, false}, {1, 1.8e-6, true}};  // the third has no prediction
  calibration.heldout.gemm = 0.1;
  const CalibrationReportInput input = calibration_report_input(calibration);
  CHECK(input.device == "1x NVIDIA H200");
  CHECK(input.model_name == "Test-MoE");
  REQUIRE(input.families.size() == 1);
  const CalibrationFamily& chart = input.families[0];
  CHECK(chart.name == "gemm");
  CHECK(chart.part == "o_proj");
  REQUIRE(chart.held_out_error.has_value());
  CHECK(*chart.held_out_error == approx(0.1));
  REQUIRE(chart.curves.size() == 1);
  CHECK(chart.curves[0].label == "N 8 x K 16");
  REQUIRE(chart.curves[0].points.size() == 2);
  const CurvePoint first = chart.curves[0].points[0];
  const CurvePoint second = chart.curves[0].points[1];
  CHECK(first.x == 1);
  CHECK(first.measured == approx(2.0));
  CHECK(first.fitted == approx(1.8));
  CHECK(first.held_out);
  CHECK(second.x == 4);
  CHECK(second.measured == approx(3.0));
  CHECK(second.fitted == approx(3.3));
  CHECK_FALSE(second.held_out);
  calibration.complete = false;
  CHECK(calibration_report_input(calibration).device == "1x NVIDIA H200 (interrupted: stages missing)");
}

TEST_CASE("the 2 x H200 file gives one chart per collective and mode, GEMM projection, MoE variant, OTP path") {
  const CalibrationReportInput input = calibration_report_input(fitted_two_h200());
  const std::map<std::string, FamilyCounts> counts = counts_by_family(input);
  // 4 collectives x eager/graph, one group size of 2, 21 sizes 1 KiB .. 1 GiB, 7 held out each.
  CHECK(counts.at("collectives").charts == 8);
  CHECK(counts.at("collectives").curves == 8);
  CHECK(counts.at("collectives").points == 168);
  CHECK(counts.at("collectives").held_out == 56);
  // 9 projections, 38 N x K shapes of 7 rows each; 12 of the 37 distinct shapes held out.
  CHECK(counts.at("gemm").charts == 9);
  CHECK(counts.at("gemm").curves == 38);
  CHECK(counts.at("gemm").points == 266);
  CHECK(counts.at("gemm").held_out == 84);
  // fused/unfused shared x streaming/cublas; a curve per E_local a path ran at (the file's labels: the fused
  // layer ran both paths at all 6 E_local, the unfused one streaming at 6 and cuBLAS at 5: 23 curves);
  // E_local 16 and 128 held out.
  CHECK(counts.at("moe_layer").charts == 4);
  CHECK(counts.at("moe_layer").curves == 23);
  CHECK(counts.at("moe_layer").points == 156);
  CHECK(counts.at("moe_layer").held_out == 52);
  // o_proj, qkv512, qkv1536 x X1/X2 on 2 GPUs, 9 batches each; of the three shapes (512, 1536, 16384 wide)
  // the middle one, qkv1536, is held out under both schemes.
  CHECK(counts.at("otp").charts == 6);
  CHECK(counts.at("otp").curves == 6);
  CHECK(counts.at("otp").points == 54);
  CHECK(counts.at("otp").held_out == 18);
  CHECK(chart_held_out_error(chart_named(input, "otp", "qkv1536, X1")).has_value());
  CHECK_FALSE(chart_held_out_error(chart_named(input, "otp", "qkv512, X2")).has_value());
  CHECK(chart_named(input, "gemm", "q_b_proj").curves.size() == 7);
}

TEST_CASE("a collective curve carries the file's medians in microseconds and holds out every third size") {
  const calib::Calibration calibration = fitted_two_h200();
  const CalibrationReportInput input = calibration_report_input(calibration);
  std::ifstream stream(kTwoH200);
  const nlohmann::json first = nlohmann::json::parse(stream).at("measurements").at(0);
  REQUIRE(first.at("kind") == "all_reduce");
  REQUIRE(first.at("mode") == "eager");
  const CalibrationFamily& chart = chart_named(input, "collectives", "all_reduce, eager");
  REQUIRE(chart.curves.size() == 1);
  CHECK(chart.curves[0].label == "2 GPUs");
  const CurvePoint& smallest = chart.curves[0].points.front();
  CHECK(smallest.x == first.at("bytes").get<double>());
  CHECK(smallest.measured == approx(first.at("seconds").get<double>() * 1e6).epsilon(1e-12));
  for (const calib::FittedPoint& fitted : calibration.fitted) {
    if (fitted.measurement == 0) CHECK(smallest.fitted == approx(fitted.predicted_seconds * 1e6));
  }
  std::set<double> held_out;
  for (const CurvePoint& point : chart.curves[0].points) {
    if (point.held_out) held_out.insert(point.x);
  }
  // 1 KiB x 2^i for i = 0 .. 20: i = 1, 4, ..., 19 held out.
  CHECK(held_out == std::set<double>{2048, 16384, 131072, 1048576, 8388608, 67108864, 536870912});
}

TEST_CASE("the 2 x H200 report is a well-formed page with every chart drawn") {
  const std::string html = calibration_report_html(calibration_report_input(fitted_two_h200()));
  CHECK(testing::page_problems(html) == "");
  CHECK(testing::find(testing::read_markup(html), "svg").size() == 8 + 9 + 4 + 6);
}

}  // namespace moeplan::report
