#pragma once
// The calibration file on disk: {"device": {...}, "measurements": [...],
// "coefficients": {...}, "heldout_mape": {"moe_layer", "otp", "collectives", "gemm"}} plus the schema,
// the command that produced it and the model signature. Reading validates every field.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "calib/calibration.hpp"

namespace moeplan::calib {

nlohmann::json calibration_to_json(const Calibration& calibration);
// Throws InputError(file, key, expectation) for a missing, mistyped or out-of-range field.
Calibration calibration_from_json(const nlohmann::json& document, const std::string& file);

Calibration read_calibration(const std::filesystem::path& file);
// Written to a temporary name and renamed into place; a non-finite number anywhere in it (JSON has none)
// throws std::runtime_error naming its path, and nothing is written.
void write_calibration(const std::filesystem::path& file, const Calibration& calibration);
// The text write_calibration writes; throws as it does.
std::string calibration_text(const Calibration& calibration);

}  // namespace moeplan::calib
