#pragma once
// The live half of moeplan calibrate: time the real kernels on this node's GPUs and fit them. Only it
// needs CUDA and NCCL; a build without them says so and exits 3.
#include <string>

#include "calib/calibration.hpp"
#include "inputs.hpp"

namespace moeplan::cli {

struct CalibrateOptions {
  ModelInput model;
  std::string out;
  std::string from;    // an existing calibration to re-fit instead of measuring
  std::string report;  // HTML report to write after the fit
  int gpus = 0;
  bool quick = false;
};

constexpr int kInterruptedExit = 130;  // 128 + SIGINT, as shells report it

struct SweepResult {
  calib::Calibration calibration;  // fitted; the first process has written it to options.out
  bool interrupted = false;        // Ctrl-C on any process: the calibration holds what was measured
  bool writer = true;              // false on the other processes of an mpirun launch: they print nothing
};

SweepResult measure_and_fit(const CalibrateOptions& options);

}  // namespace moeplan::cli
