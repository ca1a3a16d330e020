#pragma once
// A fitted calibration as the calibrate report's data: one chart per part of each measured family
// (a collective, a GEMM projection, an MoE variant, an OTP projection), one curve per shape within
// it, times in microseconds, and only the measurements the fit predicted.
#include "calib/calibration.hpp"
#include "report/calibration_report.hpp"

namespace moeplan::report {

// `calibration` must have been through calib::fit_calibration, which fills its fitted points.
CalibrationReportInput calibration_report_input(const calib::Calibration& calibration);

}  // namespace moeplan::report
