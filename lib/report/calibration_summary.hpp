#pragma once
// What calibrate prints when it is done: the held-out error per family against the target,
// the large-message bus bandwidth and small-message floor of every curve, the GEMM and MoE fits, and
// the OTP X1/X2 table (measured winner and margin beside the model's prediction before and after).
#include <string>

#include "calib/calibration.hpp"

namespace moeplan::report {

std::string calibration_summary(const calib::Calibration& calibration);

}  // namespace moeplan::report
