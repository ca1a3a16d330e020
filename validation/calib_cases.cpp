// The committed calibration files re-fitted without a GPU: the held-out error per family against issue 7's
// target (at most 10 %), and, where OTP paths were measured, doc 004's X1/X2 winner on the GPUs against the
// cost model's pick before and after calibration.
#include <fmt/format.h>

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
  ValidationCase entry = absolute_case(fmt::format("calib.{}.heldout.{}", stem, family), source, "fraction", 0.0,
                                       *error, kHeldOutTarget,
                                       fmt::format("{} held-out points, whole shapes kept out of the fit", points));
  if (!targeted) {
    // Issue 7 sets no GEMM target; one (compute, memory) efficiency pair misses cuBLAS's per-shape tiling.
    entry = with_known_gap(entry, "one roofline for every projection shape; cuBLAS tile quantisation is not modelled");
  }
  cases.push_back(entry);
}

// doc 004 / kernels.md §5.2: which scheme the GPUs ran faster, beside the calibrated model's pick.
void add_otp_rows(CaseList& cases, const std::string& stem, const std::string& source,
                  const calib::Calibration& calibration) {
  const Hardware reference = calib::reference_hardware(calibration);
  const calib::CalibratedModels models = calib::calibrated_models(calibration, reference, source);
  for (const calib::OtpRow& row : calib::otp_comparison(calibration, models, reference, reference)) {
    const double measured = row.measured_x2 / row.measured_x1;
    const double predicted = row.calibrated_x2 / row.calibrated_x1;
    cases.push_back(relative_case(
        fmt::format("calib.{}.otp.{}.p{}.b{}", stem, row.shape.label, row.ranks, row.tokens), source,
        "X2/X1", measured, predicted, kHeldOutTarget,
        fmt::format("measured X1 {:.1f} us, X2 {:.1f} us; uncalibrated model X1 {:.1f} us, X2 {:.1f} us",
                    row.measured_x1 * 1e6, row.measured_x2 * 1e6, row.uncalibrated_x1 * 1e6,
                    row.uncalibrated_x2 * 1e6)));
  }
}

}  // namespace

void add_calib_cases(CaseList& cases) {
  const std::filesystem::path folder = std::filesystem::path(MOEPLAN_SOURCE_DIR) / "validation" / "data";
  for (const auto& file : std::filesystem::directory_iterator(folder)) {
    const std::string name = file.path().filename().string();
    if (name.rfind("calibration_", 0) != 0 || file.path().extension() != ".json") continue;
    calib::Calibration calibration = calib::read_calibration(file.path());
    const std::string source = fmt::format("validation/data/{} ({}; {})", name, calibration.measured_on, calibration.command);
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
