// moeplan-calibrate-gpu: the measuring half of moeplan calibrate, the one executable that loads CUDA,
// NCCL and MPI. `moeplan calibrate` checks its options and execs it from the same directory; it takes
// the same options (all but --from) and can be run directly, also under mpirun.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "calibrate_options.hpp"
#include "measure.hpp"
#include "run_command_line.hpp"

namespace {

// Prints the fit and writes the report on the first process; Ctrl-C still exits 130 after that.
void measure(const moeplan::cli::CalibrateOptions& options) {
  const moeplan::cli::SweepResult result = moeplan::cli::measure_and_fit(options);
  if (!result.writer) return;
  const std::string html = moeplan::cli::report_html(options.report, result.calibration);
  moeplan::cli::finish(options.out, options.report, result.calibration, html);
  if (result.interrupted) {
    throw CLI::RuntimeError(fmt::format("moeplan: calibrate: interrupted; {} holds what was measured (\"complete\": "
                                        "false)",
                                        options.out),
                            moeplan::cli::kInterruptedExit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "moeplan-calibrate-gpu: time the fused-MoE, OTP and collective paths on this GPU node and fit the "
      "cost models (what `moeplan calibrate` runs when it measures)"};
  moeplan::cli::CalibrateOptions options;
  moeplan::cli::add_measuring_options(app, options);
  app.footer(
      "Example:\n  moeplan calibrate --model models/deepseek-v3.yaml --gpus 4 --out calibration-h200.json\n"
      "  mpirun -np 16 moeplan-calibrate-gpu --model models/deepseek-v3.yaml --out calibration-2x8.json");
  app.callback([&options] { measure(options); });
  return moeplan::cli::run_command_line(app, argc, argv);
}
