#include "step_model_input.hpp"

#include <fmt/format.h>

#include "calib/calibrated_models.hpp"
#include "calib/calibration_json.hpp"
#include "predict/offered_load.hpp"

namespace moeplan::cli {

void add_step_model_options(CLI::App& command, StepModelInput& input) {
  command.add_option("--calibration", input.calibration, "calibration JSON written by moeplan calibrate")
      ->check(CLI::ExistingFile);
  command.add_flag("--force", input.force, "use a calibration measured for another model or GPU");
  command.add_option("--engines", input.engines, "folder of engine profiles every step is priced with (<engine>.json)")
      ->capture_default_str();
}

StepModel step_model(const StepModelInput& input, const Model& model, const Scenario& scenario) {
  if (input.calibration.empty()) {
    return StepModel(model, scenario.cluster.hardware, tuned_efficiency(scenario.cluster.efficiency));
  }
  const calib::Calibration file = calib::read_calibration(input.calibration);
  const std::string stale = calib::build_mismatch(file.build, input.calibration);
  if (!stale.empty()) fmt::print(stderr, "warning: {}\n", stale);
  if (!input.force) {
    calib::check_model_matches(file, model, input.calibration);
    calib::check_device_matches(file, scenario.cluster.hardware, input.calibration);
  }
  const calib::CalibratedModels calibrated =
      calib::calibrated_models(file, scenario.cluster.hardware, input.calibration);
  return StepModel(model, calibrated.collectives, calibrated.efficiency);
}

EngineProfile engine_profile(const StepModelInput& input, const Scenario& scenario) {
  return predict::scenario_profile(input.engines, scenario);
}

std::string error_band_line(const ErrorBand& band) {
  return fmt::format("error band: TTFT ±{:.0f} %, TPOT ±{:.0f} % ({})\n", band.ttft_percent, band.tpot_percent,
                     band.basis);
}

nlohmann::json error_band_json(const ErrorBand& band, const Scenario& scenario) {
  return {{"engine", scenario.engine.name},
          {"engine_version", scenario.engine.version},
          {"ttft_percent", band.ttft_percent},
          {"tpot_percent", band.tpot_percent},
          {"basis", band.basis}};
}

}  // namespace moeplan::cli
