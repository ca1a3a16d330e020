// moeplan calibrate: time the real MoE, OTP and collective paths on this node, or re-fit a calibration
// measured before (--from), print the fit and write the calibration JSON and the HTML report.
#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "calib/calibration_json.hpp"
#include "calib/fit_calibration.hpp"
#include "calibrate_sweep.hpp"
#include "commands.hpp"
#include "io/atomic_file.hpp"
#include "io/input_error.hpp"
#include "report/calibration_summary.hpp"
#include "report/calibration_report.hpp"
#include "report/calibration_report_input.hpp"

namespace moeplan::cli {

namespace {

std::string report_html(const CalibrateOptions& options, const calib::Calibration& calibration) {
  if (options.report.empty()) return "";
  return report::calibration_report_html(report::calibration_report_input(calibration));
}

// Prints the fit and writes the report, whose page is built before any file is written.
void finish(const CalibrateOptions& options, const calib::Calibration& calibration, const std::string& html) {
  fmt::print("{}\n", report::calibration_summary(calibration));
  if (!options.out.empty()) {
    fmt::print("wrote {} ({} measurements, {})\n", options.out, calibration.measurements.size(), calibration.measured_on);
  }
  if (html.empty()) return;
  write_file_atomically(options.report, html);
  fmt::print("wrote {}\n", options.report);
}

// Re-fits a calibration file: no GPU needed, so it works in every build.
void refit(const CalibrateOptions& options) {
  calib::Calibration calibration = calib::read_calibration(options.from);
  try {
    calib::fit_calibration(calibration);
  } catch (const std::invalid_argument& error) {  // well-formed measurements that a curve cannot be fitted to
    throw InputError(options.from, "measurements", fmt::format("points a fit can use ({})", error.what()));
  }
  const std::string html = report_html(options, calibration);
  if (!options.out.empty()) calib::write_calibration(options.out, calibration);
  finish(options, calibration, html);
}

void measure(const CalibrateOptions& options) {
  if (options.out.empty()) throw InputError("command line", "--out", "the calibration JSON to write (or --from FILE)");
  const SweepResult result = measure_and_fit(options);
  if (!result.writer) return;
  finish(options, result.calibration, report_html(options, result.calibration));
  if (result.interrupted) {
    throw CLI::RuntimeError(fmt::format("moeplan: calibrate: interrupted; {} holds what was measured (\"complete\": false)",
                                        options.out), kInterruptedExit);
  }
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto options = std::make_shared<CalibrateOptions>();
  auto* command = app.add_subcommand("calibrate", "Time the fused-MoE, OTP and collective paths on this GPU node and fit the "
                                                  "cost models, or re-fit a calibration file");
  add_model_options(*command, options->model);
  command->add_option("--out", options->out, "calibration JSON to write (with --from: the re-fitted file)");
  auto* gpus = command->add_option("--gpus", options->gpus, "GPUs to use (default: all visible)")->check(CLI::PositiveNumber);
  auto* quick = command->add_flag("--quick", options->quick, "a short sweep (under a minute)");
  command->add_option("--from", options->from, "re-fit this calibration JSON instead of measuring (no GPU needed)")
      ->excludes(command->get_option("--model"))
      ->excludes(command->get_option("--hf-config"))
      ->excludes(gpus)
      ->excludes(quick);
  command->add_option("--report", options->report, "also write an HTML report: measured against fitted, held-out error");
  command->footer("Example:\n  moeplan calibrate --model models/deepseek-v3.yaml --gpus 4 --out calibration-h200.json\n"
                  "  moeplan calibrate --from validation/data/calibration_4xh200.json --report calibration.html\n"
                  "  mpirun -np 16 moeplan calibrate --model models/deepseek-v3.yaml --out calibration-2x8.json\n"
                  "Under mpirun (a build with MPI) each process drives one GPU and the first one writes the file.\n"
                  "Ctrl-C stops after the point in flight and writes what was measured.");
  command->callback([options] {
    if (options->from.empty()) {
      measure(*options);
    } else {
      refit(*options);
    }
  });
}

}  // namespace moeplan::cli
