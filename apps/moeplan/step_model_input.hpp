#pragma once
// The step model plan-deploy and simulate share: calibrated coefficients when a calibration file is
// given (checked against the model and GPU unless forced), datasheet rooflines at the scenario's
// efficiencies otherwise; and the error band of the scenario's engine.
#include <CLI/CLI.hpp>

#include <string>

#include "cost/engine_profile.hpp"
#include "cost/step_time.hpp"
#include "inputs.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"

namespace moeplan::cli {

struct StepModelInput {
  std::string calibration;
  bool force = false;
  std::string engines = shipped_engines_folder();
};

void add_step_model_options(CLI::App& command, StepModelInput& input);
StepModel step_model(const StepModelInput& input, const Model& model, const Scenario& scenario);

// The profile the scenario's engine prices every step with (predict::scenario_profile), read once.
EngineProfile engine_profile(const StepModelInput& input, const Scenario& scenario);

// "error band: TTFT ±x %, TPOT ±y % (basis)" for the scenario's engine, and the same as JSON.
std::string error_band_line(const ErrorBand& band);
nlohmann::json error_band_json(const ErrorBand& band, const Scenario& scenario);

}  // namespace moeplan::cli
