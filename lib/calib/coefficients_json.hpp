#pragma once
// The fitted coefficients in a calibration file (calib/calibration_json.hpp): the reference ceilings,
// the collective curves, the dense GEMM roofline, the MoE layer's stage lines and path fits, and the
// OTP schemes' adjustments. Reading validates every field.
#include <nlohmann/json.hpp>

#include "calib/calibration.hpp"
#include "io/json_fields.hpp"

namespace moeplan::calib {

nlohmann::json coefficients_json(const Coefficients& coefficients);
// Throws InputError naming the field's key path for a missing, mistyped or out-of-range field.
Coefficients read_coefficients(const JsonFields& fields);

}  // namespace moeplan::calib
