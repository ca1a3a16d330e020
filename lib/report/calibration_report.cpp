#include "report/calibration_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/html_page.hpp"
#include "report/palette.hpp"

namespace moeplan::report {

namespace {

std::string percent(std::optional<double> fraction) { return fraction ? fmt::format("{:.1f}%", 100 * *fraction) : "-"; }

// Mean relative error of the fit over the held-out points with a non-zero measurement.
std::optional<double> mean_held_out_error(const std::vector<const CalibrationCurve*>& curves) {
  double sum = 0;
  int count = 0;
  for (const CalibrationCurve* curve : curves) {
    for (const CurvePoint& point : curve->points) {
      if (!point.held_out || point.measured == 0) continue;
      sum += std::abs(point.fitted - point.measured) / std::abs(point.measured);
      ++count;
    }
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

std::string point_detail(const CurvePoint& point) {
  return fmt::format("x {:.4g}: measured {:.4g}, fitted {:.4g} ({:+.1f}%){}", point.x, point.measured, point.fitted,
                     point.measured != 0 ? 100 * (point.fitted - point.measured) / point.measured : 0.0,
                     point.held_out ? ", held out" : "");
}

std::size_t held_out_points(const CalibrationFamily& family) {
  std::size_t count = 0;
  for (const CalibrationCurve& curve : family.curves) {
    for (const CurvePoint& point : curve.points) count += point.held_out ? 1 : 0;
  }
  return count;
}

std::size_t points(const CalibrationFamily& family) {
  std::size_t count = 0;
  for (const CalibrationCurve& curve : family.curves) count += curve.points.size();
  return count;
}

// One row per chart: a family split over several charts has a row for each part.
HtmlTable error_table(const CalibrationReportInput& input) {
  HtmlTable table(
      {"family", "chart", "curves", "points", "held out", "held-out error (chart)", "held-out error (family)"});
  for (const CalibrationFamily& family : input.families) {
    table.rows.push_back({family.name, family.part.empty() ? "all" : family.part,
                          fmt::format("{}", family.curves.size()), fmt::format("{}", points(family)),
                          fmt::format("{}", held_out_points(family)), percent(chart_held_out_error(family)),
                          percent(family.held_out_error)});
  }
  return table;
}

std::string chart_title(const CalibrationFamily& family) {
  if (family.part.empty()) {
    return fmt::format("{}: measured and fitted (held-out error {})", family.name, percent(family.held_out_error));
  }
  // Shorter than the whole-family title: the section heading already says "measured against fitted".
  const std::optional<double> here = chart_held_out_error(family);
  const std::string error = here ? "held-out error " + percent(here) : "none held out here";
  return fmt::format("{}, {}: {} (family {})", family.name, family.part, error, percent(family.held_out_error));
}

}  // namespace

std::optional<double> held_out_error(const CalibrationCurve& curve) { return mean_held_out_error({&curve}); }

std::optional<double> chart_held_out_error(const CalibrationFamily& family) {
  std::vector<const CalibrationCurve*> curves;
  for (const CalibrationCurve& curve : family.curves) curves.push_back(&curve);
  return mean_held_out_error(curves);
}

XyChart calibration_chart(const CalibrationFamily& family) {
  XyChart chart = titled_chart(chart_title(family), family.x_title, family.y_title);
  chart.x.logarithmic = family.logarithmic_x;
  chart.y.logarithmic = family.logarithmic_y;
  for (std::size_t index = 0; index < family.curves.size(); ++index) {
    const CalibrationCurve& curve = family.curves[index];
    Series fitted = line_series(curve.label + " fit", category_colour(index), "fitted");
    Series measured = point_series("", category_colour(index), "measured");
    Series held_out = point_series("", category_colour(index), "held-out");
    held_out.hollow = true;
    for (const CurvePoint& point : curve.points) {
      fitted.data.push_back({point.x, point.fitted, "", ""});
      (point.held_out ? held_out : measured)
          .data.push_back({point.x, point.measured, curve.label, point_detail(point)});
    }
    chart.series.insert(chart.series.end(), {fitted, measured, held_out});
  }
  // One legend entry each for the two kinds of measured point, in the furniture colour.
  chart.series.push_back(point_series("measured, in the fit", kAxisColour, "key"));
  chart.series.push_back(point_series("measured, held out", kAxisColour, "key"));
  chart.series.back().hollow = true;
  return chart;
}

std::string calibration_report_html(const CalibrationReportInput& input) {
  HtmlPage page("moeplan calibrate: " + input.device, "model " + input.model_name);
  page.facts({{"device", input.device}, {"model", input.model_name}, {"measured with", input.command}});
  page.section("Held-out error");
  page.paragraph(
      "Held-out points are whole shapes kept out of the fit; their error is how far the fitted model is "
      "from a measurement it never saw.");
  page.table(error_table(input));
  std::string previous_family;
  for (const CalibrationFamily& family : input.families) {
    if (family.name != previous_family) page.section("Measured against fitted: " + family.name);
    previous_family = family.name;
    page.figure(xy_chart_svg(calibration_chart(family)),
                "Dots: medians measured in the fit; rings: held out; lines: the fitted model at the same sizes.");
  }
  return page.finish();
}

}  // namespace moeplan::report
