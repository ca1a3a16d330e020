// moeplan calibrate: re-fit a calibration measured before (--from), here and with no GPU; or check a
// measuring run's options and hand it to moeplan-calibrate-gpu, which times the real MoE, OTP and
// collective paths on this node's GPUs.
#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "calib/calibration_json.hpp"
#include "calib/fit_calibration.hpp"
#include "calibrate_handoff.hpp"
#include "calibrate_options.hpp"
#include "commands.hpp"
#include "io/input_error.hpp"
#include "outputs.hpp"
#include "spec/hardware.hpp"

namespace moeplan::cli {

namespace calibrate_command {

struct CalibrateCommand {
  CalibrateOptions options;
  std::string from;  // an existing calibration to re-fit instead of measuring
  std::string gpu;   // the preset the node holds, when named: checked to be one calibrate can measure
};

// moeplan-calibrate-gpu times CUDA kernels and NCCL collectives: a GPU programmed otherwise is refused.
void check_measurable(const std::string& gpu) {
  if (gpu.empty()) return;
  const Hardware hardware = hardware_preset(gpu, "command line", "--gpu");
  if (!hardware.cuda) {
    throw InputError("command line", "--gpu",
                     fmt::format("a CUDA GPU: calibrate is CUDA-only (CUDA kernels, NCCL collectives), and {} runs "
                                 "its collectives through {}; tune its scenario's efficiency instead, got '{}'",
                                 hardware.name, hardware.collectives, gpu));
  }
}

// Re-fits a calibration file: no GPU needed, so it works in every build.
void refit(const std::string& from, const CalibrateOptions& options) {
  OutputSet outputs;
  outputs.add_input("--from", from);
  add_output_if_given(outputs, "--out", options.out);
  add_output_if_given(outputs, "--report", options.report);
  calib::Calibration calibration = calib::read_calibration(from);
  try {
    calib::fit_calibration(calibration);
  } catch (const std::invalid_argument& error) {  // well-formed measurements that a curve cannot be fitted to
    throw InputError(from, "measurements", fmt::format("points a fit can use ({})", error.what()));
  }
  if (!options.out.empty()) outputs.set_contents("--out", calib::calibration_text(calibration));
  if (!options.report.empty()) outputs.set_contents("--report", report_html(options.report, calibration));
  outputs.write_temporaries();
  finish(options.out, options.report, calibration, "");
  if (!options.report.empty()) fmt::print("wrote {}\n", options.report);
  commit_outputs(outputs);
}

// A bad option or model file is reported here, by every build, before the GPU executable is looked for.
void measure(const CalibrateOptions& options, const std::string& gpu) {
  check_measurable(gpu);
  checked_model(options);
  run_gpu_calibration(options);
}

void add(CLI::App& app) {
  auto state = std::make_shared<CalibrateCommand>();
  auto* command = app.add_subcommand("calibrate",
                                     "Time the fused-MoE, OTP and collective paths on this GPU node and fit the "
                                     "cost models, or re-fit a calibration file");
  add_measuring_options(*command, state->options);
  command
      ->add_option("--from", state->from,
                   "re-fit this calibration JSON instead of measuring (no GPU needed); --out "
                   "then names the re-fitted file")
      ->excludes(command->get_option("--model"))
      ->excludes(command->get_option("--hf-config"))
      ->excludes(command->get_option("--gpus"))
      ->excludes(command->get_option("--quick"));
  command->add_option("--gpu", state->gpu,
                      "the GPU preset this node holds, checked before measuring: calibrate measures CUDA GPUs only");
  command->footer(
      "Example:\n  moeplan calibrate --model models/deepseek-v3.yaml --gpus 4 --out calibration-h200.json\n"
      "  moeplan calibrate --from validation/data/calibration_2xh200.json --report calibration.html\n"
      "  mpirun -np 16 moeplan calibrate --model models/deepseek-v3.yaml --out calibration-2x8.json\n"
      "Measuring runs moeplan-calibrate-gpu, built beside moeplan where CUDA and NCCL are found.\n"
      "Under mpirun (a build with MPI) each process drives one GPU and the first one writes the file.\n"
      "Ctrl-C stops after the point in flight and writes what was measured.");
  command->callback([state] {
    if (state->from.empty()) {
      measure(state->options, state->gpu);
    } else {
      refit(state->from, state->options);
    }
  });
}

}  // namespace calibrate_command

void add_calibrate_command(CLI::App& app) { calibrate_command::add(app); }

}  // namespace moeplan::cli
