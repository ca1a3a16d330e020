// The committed calibration files re-fitted without a GPU: the held-out error per family against issue 7's
// target (at most 10 %), and, where OTP paths were measured, the X1/X2 winner [doc-004] on the GPUs against
// the cost model's pick before and after calibration.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>

#include "calib/calibrated_models.hpp"
#include "calib/calibration_json.hpp"
#include "calib/fit_calibration.hpp"
#include "calib/otp_comparison.hpp"
#include "validation_case.hpp"

namespace moeplan::validation {

namespace {

constexpr double kHeldOutTarget = 0.10;  // issue 7: held-out MAPE at most 10 % for MoE, OTP and collectives

void add_family(CaseList& cases, const std::string& stem, const std::string& source, const char* family,
                const std::optional<double>& error, int points, bool targeted) {
  if (!error) return;
  ValidationCase entry =
      absolute_case(fmt::format("calib.{}.heldout.{}", stem, family), source, "fraction", 0.0, *error, kHeldOutTarget,
                    fmt::format("{} held-out points, whole shapes kept out of the fit", points));
  if (!targeted) {
    // Issue 7 sets no GEMM target; one (compute, memory) efficiency pair misses cuBLAS's per-shape tiling.
    entry = with_known_gap(entry, "one roofline for every projection shape; cuBLAS tile quantisation is not modelled");
  }
  cases.push_back(entry);
}

// [doc-004], [moeplan-otp-paths]: which scheme the GPUs ran faster, beside the calibrated model's pick. A row
// decides only where the slower measured scheme is behind by more than both sides' held-out error
// together (and at least 10 %): there the calibrated model must pick the winner every time. The X2/X1
// ratio is checked on average.
constexpr double kCloseCall = 0.10;

void add_otp_rows(CaseList& cases, const std::string& stem, const std::string& source,
                  const calib::Calibration& calibration) {
  const Hardware reference = calib::reference_hardware(calibration);
  const calib::CalibratedModels models = calib::calibrated_models(calibration, reference, source);
  const std::vector<calib::OtpRow> rows = calib::otp_comparison(calibration, models, reference, reference);
  if (rows.empty()) return;
  const double close_call = std::max(kCloseCall, 2.0 * calibration.heldout.otp.value_or(0.0));
  int deciding = 0, calibrated_right = 0, uncalibrated_right = 0;
  double ratio_error = 0;
  for (const calib::OtpRow& row : rows) {
    const double measured = row.measured_x2 / row.measured_x1;
    ratio_error += std::abs(row.calibrated_x2 / row.calibrated_x1 / measured - 1.0);
    if (std::max(measured, 1.0 / measured) - 1.0 <= close_call) continue;
    ++deciding;
    calibrated_right += row.calibrated_winner() == row.measured_winner() ? 1 : 0;
    uncalibrated_right += row.uncalibrated_winner() == row.measured_winner() ? 1 : 0;
  }
  const std::string counts = fmt::format(
      "{} rows, {} where one scheme is more than {:.0f} % faster; calibrated model "
      "right on {} of those, uncalibrated on {}",
      rows.size(), deciding, close_call * 100, calibrated_right, uncalibrated_right);
  if (deciding > 0) {
    cases.push_back(absolute_case(fmt::format("calib.{}.otp.winner", stem), source, "share right", 1.0,
                                  static_cast<double>(calibrated_right) / deciding, 0.0, counts));
  }
  cases.push_back(absolute_case(fmt::format("calib.{}.otp.x2_over_x1", stem), source, "mean error", 0.0,
                                ratio_error / static_cast<double>(rows.size()), kHeldOutTarget, counts));
}

}  // namespace

void add_calib_cases(CaseList& cases) {
  const std::filesystem::path folder = std::filesystem::path(MOEPLAN_SOURCE_DIR) / "validation" / "data";
  for (const auto& file : std::filesystem::directory_iterator(folder)) {
    const std::string name = file.path().filename().string();
    if (name.rfind("calibration_", 0) != 0 || file.path().extension() != ".json") continue;
    calib::Calibration calibration = calib::read_calibration(file.path());
    const std::string source =
        fmt::format("validation/data/{} ({}; {})", name, calibration.measured_on, calibration.command);
    calib::fit_calibration(calibration);  // re-fitted here: the held-out error is recomputed, not read back
    const std::string stem = file.path().stem().string().substr(std::string("calibration_").size());
    const calib::HeldOutError& heldout = calibration.heldout;
    add_family(cases, stem, source, "moe_layer", heldout.moe_layer, heldout.moe_layer_points, true);
    add_family(cases, stem, source, "otp", heldout.otp, heldout.otp_points, true);
    add_family(cases, stem, source, "collectives", heldout.collectives, heldout.collectives_points, true);
    add_family(cases, stem, source, "gemm", heldout.gemm, heldout.gemm_points, false);
    add_otp_rows(cases, stem, source, calibration);
  }
}

}  // namespace moeplan::validation
