#include "report/calibration_report_input.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace moeplan::report {

namespace {

constexpr double kMicroseconds = 1e6;

// Where one measurement is drawn: the chart (a part of its family), the curve in it, and its x.
struct Placement {
  std::string part;
  std::string curve;
  double x = 0;
};

// One chart per collective and launch mode, so an 8-GPU node's seven group sizes stay tellable apart.
Placement collective_placement(const calib::Measurement& measurement) {
  return {fmt::format("{}, {}", measurement.kind, measurement.mode), fmt::format("{} GPUs", measurement.ranks),
          measurement.bytes};
}

Placement gemm_placement(const calib::Measurement& measurement) {
  return {measurement.kind, fmt::format("N {} x K {}", measurement.dimension("n"), measurement.dimension("k")),
          static_cast<double>(measurement.dimension("m"))};
}

// The variant is the shared-expert handling and the measured grouped-GEMM path.
Placement moe_layer_placement(const calib::Measurement& measurement) {
  return {fmt::format("{}, {}", measurement.kind, measurement.label),
          fmt::format("{} local experts", measurement.dimension("local_experts")),
          static_cast<double>(measurement.dimension("tokens"))};
}

Placement otp_placement(const calib::Measurement& measurement) {
  return {fmt::format("{}, {}", measurement.label, measurement.kind == "x1" ? "X1" : "X2"),
          fmt::format("{} GPUs", measurement.ranks), static_cast<double>(measurement.dimension("tokens"))};
}

struct FamilyLayout {
  calib::Family family;
  const char* name;
  const char* x_title;
  Placement (*place)(const calib::Measurement&);
  std::optional<double> calib::HeldOutError::*held_out_error;
};

const FamilyLayout kFamilyLayouts[] = {
    {calib::Family::collective, "collectives", "message size (bytes, nccl-tests S)", collective_placement,
     &calib::HeldOutError::collectives},
    {calib::Family::gemm, "gemm", "rows m (tokens)", gemm_placement, &calib::HeldOutError::gemm},
    {calib::Family::moe_layer, "moe_layer", "tokens at the rank", moe_layer_placement, &calib::HeldOutError::moe_layer},
    {calib::Family::otp, "otp", "tokens per rank", otp_placement, &calib::HeldOutError::otp},
};

// The fit's prediction of each measurement, or null where it made none.
std::vector<const calib::FittedPoint*> fitted_by_measurement(const calib::Calibration& calibration) {
  std::vector<const calib::FittedPoint*> fitted(calibration.measurements.size(), nullptr);
  for (const calib::FittedPoint& point : calibration.fitted) fitted.at(point.measurement) = &point;
  return fitted;
}

CalibrationFamily& chart_for(std::vector<CalibrationFamily>& charts, const FamilyLayout& layout,
                             const std::string& part, const calib::HeldOutError& heldout) {
  for (CalibrationFamily& chart : charts) {
    if (chart.part == part) return chart;
  }
  charts.push_back({layout.name, layout.x_title, "time (us)", true, true, {}, heldout.*layout.held_out_error, part});
  return charts.back();
}

CalibrationCurve& curve_for(CalibrationFamily& chart, const std::string& label) {
  for (CalibrationCurve& curve : chart.curves) {
    if (curve.label == label) return curve;
  }
  chart.curves.push_back({label, {}});
  return chart.curves.back();
}

void sort_points(std::vector<CalibrationFamily>& charts) {
  for (CalibrationFamily& chart : charts) {
    for (CalibrationCurve& curve : chart.curves) {
      std::stable_sort(curve.points.begin(), curve.points.end(),
                       [](const CurvePoint& left, const CurvePoint& right) { return left.x < right.x; });
    }
  }
}

// Charts and curves in the order the sweep first measured them.
std::vector<CalibrationFamily> family_charts(const calib::Calibration& calibration, const FamilyLayout& layout,
                                             const std::vector<const calib::FittedPoint*>& fitted) {
  std::vector<CalibrationFamily> charts;
  for (std::size_t index = 0; index < calibration.measurements.size(); ++index) {
    const calib::Measurement& measurement = calibration.measurements[index];
    if (measurement.family != layout.family || fitted[index] == nullptr) continue;
    const Placement placement = layout.place(measurement);
    CalibrationFamily& chart = chart_for(charts, layout, placement.part, calibration.heldout);
    curve_for(chart, placement.curve)
        .points.push_back({placement.x, measurement.seconds * kMicroseconds,
                           fitted[index]->predicted_seconds * kMicroseconds, fitted[index]->held_out});
  }
  sort_points(charts);
  return charts;
}

}  // namespace

CalibrationReportInput calibration_report_input(const calib::Calibration& calibration) {
  // An interrupted sweep ("complete": false) holds only the stages it reached: the page says so.
  const std::string device =
      calibration.complete ? calibration.measured_on : calibration.measured_on + " (interrupted: stages missing)";
  CalibrationReportInput input{device, calibration.model.name, calibration.command, {}};
  const std::vector<const calib::FittedPoint*> fitted = fitted_by_measurement(calibration);
  for (const FamilyLayout& layout : kFamilyLayouts) {
    std::vector<CalibrationFamily> charts = family_charts(calibration, layout, fitted);
    input.families.insert(input.families.end(), charts.begin(), charts.end());
  }
  return input;
}

}  // namespace moeplan::report
