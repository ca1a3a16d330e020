#pragma once
// The calibrate report: measured against fitted curves for each family (collectives, GEMMs, the MoE
// layer, the OTP paths) with the held-out error. It takes plain data; calibration_report_input.hpp maps a
// fitted calibration onto it.
#include <optional>
#include <string>
#include <vector>

#include "report/xy_chart.hpp"

namespace moeplan::report {

struct CurvePoint {
  double x = 0;           // the swept size: bytes, tokens, N x K, ...
  double measured = 0;    // median measured value, e.g. seconds
  double fitted = 0;      // the fitted model's value at the same x
  bool held_out = false;  // kept out of the fit
};

// One measured curve of a family: an all-reduce over 8 GPUs, a GEMM of one N x K, ...
struct CalibrationCurve {
  std::string label;
  std::vector<CurvePoint> points;  // ascending x
};

struct CalibrationFamily {
  std::string name;     // "collectives", "gemm", "moe_layer", "otp"
  std::string x_title;  // "message size (bytes)"
  std::string y_title;  // "time (us)"
  bool logarithmic_x = true;
  bool logarithmic_y = true;
  std::vector<CalibrationCurve> curves;
  std::optional<double> held_out_error;  // the fit's held-out MAPE as a fraction (0.05 = 5%)
  std::string part;  // the slice of the family this chart shows ("all_reduce"); empty when it shows all of it
};

struct CalibrationReportInput {
  std::string device;  // "8 x NVIDIA H200"
  std::string model_name;
  std::string command;  // the command line that measured it
  std::vector<CalibrationFamily> families;
};

// Mean absolute percentage error of the fit over the curve's held-out points, as a fraction; none
// when the curve has no held-out point with a non-zero measurement.
std::optional<double> held_out_error(const CalibrationCurve& curve);
// The same over every curve of one chart.
std::optional<double> chart_held_out_error(const CalibrationFamily& family);

// Measured points (filled in the fit, hollow held out) and the fitted curve as a line, one colour per curve.
XyChart calibration_chart(const CalibrationFamily& family);

std::string calibration_report_html(const CalibrationReportInput& input);

}  // namespace moeplan::report
