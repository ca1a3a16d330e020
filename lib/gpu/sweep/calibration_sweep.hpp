#pragma once
// The calibration sweep as the CLI calls it, through plain C++ (no CUDA headers): the device facts, per
// group size 2 .. GPUs the collectives and the OTP paths through NCCL (one process driving every GPU, or
// one process per GPU under mpirun: processes.hpp), then dense GEMMs and the MoE layer on the first GPU. Measurements
// accumulate in `calibration`; after each stage `checkpoint` runs, so an interrupted sweep leaves what it measured.
#include <atomic>
#include <functional>

#include "calib/calibration.hpp"
#include "calib/sweep_plan.hpp"
#include "io/reporter.hpp"

namespace moeplan::gpu {

// CUDA devices this process sees; 0 when there is no driver or no GPU.
int visible_gpu_count();

// True when the sweep stopped early: a stop this process saw, or one another process of the run saw.
bool run_calibration_sweep(const calib::SweepPlan& plan, int gpus, calib::Calibration& calibration, Reporter& reporter,
                           const std::atomic<bool>& stop, const std::function<void()>& checkpoint);

}  // namespace moeplan::gpu
