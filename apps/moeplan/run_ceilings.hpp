#pragma once
// --calibration for predict-runs and fit-engine: each file's measured ceilings priced in for the runs on
// its GPU preset (runs on other GPUs stay at the roofline), and --calibration-terms, which of them.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "predict/predictor.hpp"

namespace moeplan::cli {

struct RunCeilingsInput {
  std::vector<std::string> calibrations;
  std::string terms = "memory,compute,collectives,floors";
};

void add_run_ceilings_options(CLI::App& command, RunCeilingsInput& input);

// Sets the ceilings of every --calibration file's GPU preset on `predictor` and, when any is given,
// keeps the predictor to those GPUs' runs (a profile sits on one set of ceilings). Throws InputError naming the
// file when its device is no known GPU or a second file names the same one.
void apply_run_ceilings(const RunCeilingsInput& input, predict::Predictor& predictor);

// The GPU presets the files calibrate, in the order given.
std::vector<std::string> calibrated_presets(const RunCeilingsInput& input);

}  // namespace moeplan::cli
