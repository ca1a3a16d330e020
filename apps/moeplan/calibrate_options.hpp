#pragma once
// The options of a measuring calibrate and what a finished calibration prints. Shared by `moeplan
// calibrate`, which checks them without a GPU and hands them on, and moeplan-calibrate-gpu, which
// measures: both executables compile this file, so they take the same arguments.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "calib/calibration.hpp"
#include "inputs.hpp"

namespace moeplan::cli {

struct CalibrateOptions {
  ModelInput model;
  std::string out;
  std::string report;  // HTML report to write after the fit
  int gpus = 0;
  bool quick = false;
};

constexpr int kUnavailableExit = 3;    // no GPU calibration in this build, or no GPU it can use
constexpr int kInterruptedExit = 130;  // 128 + SIGINT, as shells report it

// --model or --hf-config, --out, --gpus, --quick and --report.
void add_measuring_options(CLI::App& command, CalibrateOptions& options);

// What is checked before any GPU is touched: --out given and naming none of the inputs, the model
// readable. Throws InputError.
Model checked_model(const CalibrateOptions& options);

// The command-line arguments that give these options back, the program name excluded.
std::vector<std::string> measuring_arguments(const CalibrateOptions& options);

// The report's page when --report was given, "" otherwise: built before any file is written.
std::string report_html(const std::string& report, const calib::Calibration& calibration);

// Prints the fit and the files written (`out` when not empty), and writes the report page.
void finish(const std::string& out, const std::string& report, const calib::Calibration& calibration,
            const std::string& html);

}  // namespace moeplan::cli
