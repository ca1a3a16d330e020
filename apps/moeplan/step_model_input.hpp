#pragma once
// The step model plan-deploy and simulate share: calibrated coefficients when a calibration file is
// given (checked against the model and GPU unless forced), datasheet rooflines at the scenario's
// efficiencies otherwise; and the error band of the scenario's engine.
#include <CLI/CLI.hpp>

#include <string>

#include "cost/step_time.hpp"
#include "predict/engine_profile.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"

namespace moeplan::cli {

struct StepModelInput {
  std::string calibration;
  bool force = false;
  std::string engines = "engines";
};

void add_step_model_options(CLI::App& command, StepModelInput& input);
StepModel step_model(const StepModelInput& input, const Model& model, const Scenario& scenario);

// "error band: TTFT ±x %, TPOT ±y % (basis)" for the scenario's engine, and the same as JSON.
predict::ErrorBand scenario_error_band(const StepModelInput& input, const Scenario& scenario);
std::string error_band_line(const predict::ErrorBand& band);
nlohmann::json error_band_json(const predict::ErrorBand& band, const Scenario& scenario);

}  // namespace moeplan::cli
