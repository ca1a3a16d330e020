// The calibrate report from plain data: held-out error worked out by hand, measured points split into
// fitted and held out, and a well-formed page from a synthetic sample.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <cmath>

#include "markup.hpp"
#include "report/calibration_report.hpp"

namespace moeplan::report {

namespace {

// An all-reduce curve following alpha + bytes / bandwidth (10 us, 100 GB/s), "measured" a few per
// cent off in a fixed pattern, every third size held out.
CalibrationCurve synthetic_curve(const std::string& label, double alpha, double bandwidth) {
  CalibrationCurve curve{label, {}};
  int index = 0;
  for (double bytes = 1024; bytes <= 1024.0 * 1024 * 1024; bytes *= 4, ++index) {
    const double fitted = (alpha + bytes / bandwidth) * 1e6;
    const double wiggle = 1 + 0.04 * std::sin(index * 1.7);
    curve.points.push_back({bytes, fitted * wiggle, fitted, index % 3 == 1});
  }
  return curve;
}

CalibrationReportInput sample_input() {
  CalibrationFamily collectives{
      "collectives", "message size (bytes)",
      "time (us)",   true,
      true,          {synthetic_curve("all_reduce x8", 10e-6, 100e9), synthetic_curve("all_to_all x8", 15e-6, 60e9)},
      0.031,         ""};
  CalibrationFamily gemm{"gemm", "tokens", "time (us)", true, true, {synthetic_curve("o_proj 7168 x 16384", 5e-6, 2e9)},
                         0.054,  ""};
  return {"synthetic sample (not a measurement)",
          "Test-MoE",
          "moeplan calibrate --model test.yaml --out test.json",
          {collectives, gemm}};
}

}  // namespace

TEST_CASE("held-out error is the mean relative error over the held-out points only") {
  const CalibrationCurve curve{"test", {{1, 100, 110, true}, {2, 200, 190, true}, {3, 300, 600, false}}};
  REQUIRE(held_out_error(curve).has_value());
  CHECK(*held_out_error(curve) == approx(0.075));  // (10 % + 5 %) / 2
  CHECK_FALSE(held_out_error({"none held out", {{1, 100, 110, false}}}).has_value());
}

TEST_CASE("measured points are split into the fitted and the held out, the fit drawn as a line") {
  const CalibrationFamily family{"collectives", "bytes", "us",
                                 true,          false,   {{"all_reduce", {{1, 100, 110, true}, {2, 200, 190, false}}}},
                                 0.1,           ""};
  const XyChart chart = calibration_chart(family);
  CHECK(chart.x.logarithmic);
  CHECK_FALSE(chart.y.logarithmic);
  CHECK(chart.title == "collectives: measured and fitted (held-out error 10.0%)");
  REQUIRE(chart.series.size() == 5);  // fit, in the fit, held out; then the two legend keys
  CHECK(chart.series[0].line);
  CHECK(chart.series[0].data.size() == 2);
  CHECK(chart.series[1].data.size() == 1);
  CHECK(chart.series[1].data[0].y == approx(200));
  CHECK(chart.series[2].hollow);
  CHECK(chart.series[2].data[0].y == approx(100));
}

TEST_CASE("a chart showing part of a family is titled with its own held-out error beside the family's") {
  CalibrationFamily family{
      "gemm", "m",
      "us",   true,
      true,   {{"N 8 x K 16", {{1, 100, 110, true}, {2, 200, 200, false}}}, {"N 8 x K 32", {{1, 100, 95, true}}}},
      0.2,    "o_proj"};
  REQUIRE(chart_held_out_error(family).has_value());
  CHECK(*chart_held_out_error(family) == approx(0.075));  // (10 % + 5 %) / 2
  CHECK(calibration_chart(family).title == "gemm, o_proj: held-out error 7.5% (family 20.0%)");
  family.curves = {{"N 8 x K 16", {{1, 100, 110, false}}}};
  CHECK(calibration_chart(family).title == "gemm, o_proj: none held out here (family 20.0%)");
}

TEST_CASE("the calibrate report is a well-formed page with one chart per family") {
  const std::string html = calibration_report_html(sample_input());
  CHECK(testing::page_problems(html) == "");
  const auto markup = testing::read_markup(html);
  CHECK(testing::find(markup, "svg").size() == 2);
  CHECK(testing::find(markup, "circle", "held-out").size() ==
        3 * 4);  // 1 KiB x 4^k up to 1 GiB: k = 1, 4, 7, 10 held out, three curves
  CHECK(html.find("3.1%") != std::string::npos);
}

}  // namespace moeplan::report
