#pragma once
// moeplan links no GPU library: a measuring calibrate runs moeplan-calibrate-gpu, which the build puts
// beside moeplan where CUDA and NCCL were found. exec keeps the process id and the environment, so under
// mpirun each process keeps the rank its launcher gave it.
#include <string>

#include "calibrate_options.hpp"

namespace moeplan::cli {

// What --version says of it: "moeplan-calibrate-gpu, sm_90a" when it sits beside this executable,
// "not built" otherwise. One access(2), no library loaded.
std::string gpu_calibration_status();

// Replaces this process with moeplan-calibrate-gpu given `options`; throws CLI::RuntimeError (exit 3)
// when this build has none or it cannot be started.
[[noreturn]] void run_gpu_calibration(const CalibrateOptions& options);

}  // namespace moeplan::cli
