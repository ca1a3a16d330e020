#include "run_ceilings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "calib/calibrated_models.hpp"
#include "calib/calibration_json.hpp"
#include "io/input_error.hpp"

namespace moeplan::cli {

namespace {

Hardware calibrated_gpu(const calib::Calibration& calibration, const std::string& file) {
  const std::optional<Hardware> preset = calib::preset_for_device(calibration.device.name);
  if (!preset)
    throw InputError(file, "device.name", "a GPU with a preset (H100, H200, ...), got " + calibration.device.name);
  return *preset;
}

}  // namespace

void add_run_ceilings_options(CLI::App& command, RunCeilingsInput& input) {
  command
      .add_option("--calibration", input.calibrations,
                  "calibration JSON (moeplan calibrate); its GPU's runs are priced on its measured ceilings "
                  "(repeat for other GPUs)")
      ->check(CLI::ExistingFile);
  command
      .add_option("--calibration-terms", input.terms,
                  "which measurements enter: memory, compute, collectives, floors, expert_paths (comma-separated)")
      ->capture_default_str();
}

std::vector<std::string> calibrated_presets(const RunCeilingsInput& input) {
  std::vector<std::string> presets;
  for (const std::string& file : input.calibrations)
    presets.push_back(calibrated_gpu(calib::read_calibration(file), file).name);
  return presets;
}

void apply_run_ceilings(const RunCeilingsInput& input, predict::Predictor& predictor) {
  const calib::CeilingTerms terms = calib::parse_ceiling_terms(input.terms, "command line", "--calibration-terms");
  std::vector<std::string> seen;
  for (const std::string& file : input.calibrations) {
    const calib::Calibration calibration = calib::read_calibration(file);
    const Hardware gpu = calibrated_gpu(calibration, file);
    if (std::find(seen.begin(), seen.end(), gpu.name) != seen.end()) {
      throw InputError(file, "device.name", "one calibration per GPU, got a second for " + gpu.name);
    }
    seen.push_back(gpu.name);
    calib::CalibratedModels models = calib::measured_ceilings(calibration, gpu, file, roofline_efficiency(), terms);
    const std::string name = fmt::format("{}: {} ({}; {})", gpu.name, std::filesystem::path(file).filename().string(),
                                         calibration.measured_on, calib::ceiling_terms_name(terms));
    predictor.set_ceilings(gpu.name, {std::move(models.collectives), std::move(models.efficiency), name});
  }
  predictor.only_presets(seen);
}

}  // namespace moeplan::cli
