// moeplan calibrate: time the real MoE, OTP and collective paths on this node.
#include <memory>

#include "commands.hpp"
#include "inputs.hpp"

namespace moeplan::cli {

namespace {

constexpr int kUnavailableExit = 3;

struct CalibrateOptions {
  ModelInput model;
  std::string out;
  int gpus = 0;
  bool quick = false;
};

void run(const CalibrateOptions& options) {
  load_model(options.model);  // a bad model file is reported before anything else
#ifdef MOEPLAN_HAVE_CUDA
  throw CLI::RuntimeError("moeplan: calibrate: the calibration sweep is not part of moeplan " MOEPLAN_VERSION " yet",
                          kUnavailableExit);
#else
  throw CLI::RuntimeError(
      "moeplan: calibrate: this build has no GPU support (no CUDA compiler was found when it was configured); "
      "rebuild on a machine with nvcc 13 (e.g. cmake -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)",
      kUnavailableExit);
#endif
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto options = std::make_shared<CalibrateOptions>();
  auto* command = app.add_subcommand("calibrate", "Time the fused-MoE, OTP and collective paths on this GPU node and fit the cost models");
  add_model_options(*command, options->model);
  command->add_option("--out", options->out, "calibration JSON to write")->required();
  command->add_option("--gpus", options->gpus, "GPUs to use (default: all visible)")->check(CLI::PositiveNumber);
  command->add_flag("--quick", options->quick, "a short sweep");
  command->footer("Example:\n  moeplan calibrate --model models/deepseek-v3.yaml --gpus 8 --out calibration-h200.json");
  command->callback([options] { run(*options); });
}

}  // namespace moeplan::cli
