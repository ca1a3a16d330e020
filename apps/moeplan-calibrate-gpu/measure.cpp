// The calibration sweep on this node's GPUs: progress on stderr, a checkpoint file after each stage,
// and Ctrl-C stopping after the point in flight.
#include "measure.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>

#include "calib/calibration_json.hpp"
#include "calib/fit_calibration.hpp"
#include "calib/sweep_plan.hpp"
#include "gpu/sweep/calibration_sweep.hpp"
#include "gpu/sweep/processes.hpp"
#include "io/reporter.hpp"

namespace moeplan::cli {

namespace {

std::atomic<bool> stop_requested{false};

// The first Ctrl-C asks the sweep to stop after the point in flight; a second one ends the process.
extern "C" void request_stop(int) {
  stop_requested = true;
  std::signal(SIGINT, SIG_DFL);
}

// One line per stage and per tenth of the sweep, with the time left extrapolated from the time so far.
class ProgressReporter final : public Reporter {
 public:
  void note(std::string_view message) override {
    std::fprintf(stderr, "calibrate: %.*s\n", int(message.size()), message.data());
  }
  void warning(std::string_view message) override {
    std::fprintf(stderr, "warning: %.*s\n", int(message.size()), message.data());
  }
  void progress(std::string_view stage, double fraction_done) override {
    const int tenth = static_cast<int>(fraction_done * 10);
    if (stage == stage_ && tenth == tenth_) return;
    stage_ = std::string(stage);
    tenth_ = tenth;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string left =
        fraction_done > 0.02 ? fmt::format(", about {:.0f} s left", elapsed * (1 - fraction_done) / fraction_done) : "";
    std::fprintf(stderr, "calibrate: [%3.0f%%] %s%s\n", fraction_done * 100, stage_.c_str(), left.c_str());
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::string stage_;
  int tenth_ = -1;
};

// The command as run, with the environment that shapes what it measures.
std::string command_line(const CalibrateOptions& options) {
  const gpu::Processes& processes = gpu::Processes::instance();
  std::string environment;
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "NCCL_NVLS_ENABLE", "NCCL_RUNTIME_CONNECT", "NCCL_LAUNCH_MODE",
                           "NCCL_P2P_DISABLE", "NCCL_P2P_DIRECT_DISABLE", "NCCL_CUMEM_ENABLE"}) {
    // Under mpirun each process's CUDA_VISIBLE_DEVICES was narrowed to its own GPU: the user's list is kept.
    if (std::string(name) == "CUDA_VISIBLE_DEVICES") {
      if (processes.visible_at_start()) environment += fmt::format("{}={} ", name, *processes.visible_at_start());
    } else if (const char* value = std::getenv(name)) {
      environment += fmt::format("{}={} ", name, value);
    }
  }
  if (processes.distributed()) environment += fmt::format("mpirun -np {} ", processes.size());
  const std::string model = options.model.model_file.empty() ? "--hf-config " + options.model.hf_config_file
                                                             : "--model " + options.model.model_file;
  return fmt::format("{}moeplan calibrate {} --out {}{}{}", environment, model, options.out,
                     options.gpus > 0 ? fmt::format(" --gpus {}", options.gpus) : "", options.quick ? " --quick" : "");
}

int usable_gpus(const CalibrateOptions& options) {
  const gpu::Processes& processes = gpu::Processes::instance();
  if (processes.launched_without_mpi()) {
    throw CLI::RuntimeError(
        "moeplan: calibrate: started by mpirun, but this process joined no MPI job: the build has "
        "no MPI (mpi.h was not found when it was configured) or another MPI than the launcher's; "
        "run one process, which drives every GPU of the node, or rebuild with the launcher's MPI",
        kUnavailableExit);
  }
  if (processes.distributed()) {
    if (gpu::visible_gpu_count() == 0) {
      throw CLI::RuntimeError(fmt::format("moeplan: calibrate: process {} of {} sees no GPU (one GPU per process under "
                                          "mpirun)",
                                          processes.rank(), processes.size()),
                              kUnavailableExit);
    }
    if (options.gpus > 0 && options.gpus != processes.size()) {
      throw CLI::RuntimeError(fmt::format("moeplan: calibrate: --gpus {} under mpirun with {} processes: one GPU per "
                                          "process, so leave --gpus out or make them equal",
                                          options.gpus, processes.size()),
                              kUnavailableExit);
    }
    return processes.size();
  }
  const int visible = gpu::visible_gpu_count();
  if (visible == 0) {
    throw CLI::RuntimeError(
        "moeplan: calibrate: no CUDA GPU is visible (no driver, no device, or CUDA_VISIBLE_DEVICES "
        "names none)",
        kUnavailableExit);
  }
  if (options.gpus > visible) {
    throw CLI::RuntimeError(fmt::format("moeplan: calibrate: --gpus {} asked for, but only {} GPU{} visible",
                                        options.gpus, visible, visible == 1 ? " is" : "s are"),
                            kUnavailableExit);
  }
  return options.gpus > 0 ? options.gpus : visible;
}

calib::Calibration fitted(const calib::Calibration& measured, bool complete) {
  calib::Calibration calibration = measured;
  calibration.complete = complete;
  calib::fit_calibration(calibration);
  return calibration;
}

}  // namespace

// Under mpirun this picks the process's GPU, so it runs first; a node with fewer GPUs than processes says so.
gpu::Processes& started_processes() {
  try {
    return gpu::Processes::instance();
  } catch (const std::runtime_error& error) {
    throw CLI::RuntimeError(fmt::format("moeplan: calibrate: {}", error.what()), kUnavailableExit);
  }
}

SweepResult measure_and_fit(const CalibrateOptions& options) {
  gpu::Processes& processes = started_processes();
  const Model model = checked_model(options);
  const int gpus = usable_gpus(options);
  const bool writer = processes.rank() == 0;
  calib::Calibration measured;
  measured.command = command_line(options);
  measured.build = calib::this_build();
  measured.model = calib::model_signature(model);
  const calib::SweepPlan plan = calib::sweep_plan(model, gpus, options.quick);
  ProgressReporter progress;
  SilentReporter silent;
  Reporter& reporter = writer ? static_cast<Reporter&>(progress) : silent;  // the first process speaks for the run
  bool written = false;
  const auto checkpoint = [&] {
    if (!writer || measured.measurements.empty()) return;
    calib::write_calibration(options.out, fitted(measured, false));
    written = true;
  };
  stop_requested = false;
  std::signal(SIGINT, request_stop);
  bool interrupted = false;
  try {
    interrupted = gpu::run_calibration_sweep(plan, gpus, measured, reporter, stop_requested, checkpoint);
  } catch (const std::exception& error) {
    std::signal(SIGINT, SIG_DFL);
    if (processes.distributed()) {
      // The other processes wait in NCCL or MPI for this one: say why and end them all.
      std::fprintf(stderr, "moeplan: calibrate: process %d: %s\n", processes.rank(), error.what());
      processes.abort(1);
    }
    throw CLI::RuntimeError(
        fmt::format("moeplan: calibrate: {}{}", error.what(),
                    written ? fmt::format("; {} holds the stages measured before it", options.out) : ""),
        1);
  }
  std::signal(SIGINT, SIG_DFL);
  processes.finish();
  if (!writer) return {measured, interrupted, false};
  if (interrupted && measured.measurements.empty()) {
    throw CLI::RuntimeError("moeplan: calibrate: interrupted before anything was measured; nothing was written",
                            kInterruptedExit);
  }
  SweepResult result{fitted(measured, !interrupted), interrupted, true};
  calib::write_calibration(options.out, result.calibration);
  return result;
}

}  // namespace moeplan::cli
