#pragma once
// The measuring half of moeplan calibrate: time the real kernels on this node's GPUs and fit them.
#include "calib/calibration.hpp"
#include "calibrate_options.hpp"

namespace moeplan::cli {

struct SweepResult {
  calib::Calibration calibration;  // fitted; the first process has written it to options.out
  bool interrupted = false;        // Ctrl-C on any process: the calibration holds what was measured
  bool writer = true;              // false on the other processes of an mpirun launch: they print nothing
};

SweepResult measure_and_fit(const CalibrateOptions& options);

}  // namespace moeplan::cli
