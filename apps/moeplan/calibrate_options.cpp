#include "calibrate_options.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "inputs.hpp"
#include "io/atomic_file.hpp"
#include "io/input_error.hpp"
#include "outputs.hpp"
#include "report/calibration_report.hpp"
#include "report/calibration_report_input.hpp"
#include "report/calibration_summary.hpp"

namespace moeplan::cli {

void add_measuring_options(CLI::App& command, CalibrateOptions& options) {
  add_model_options(command, options.model);
  add_output_option(command, "--out", options.out, "calibration JSON to write");
  command.add_option("--gpus", options.gpus, "GPUs to use (default: all visible)")->check(integer_in(1, 4096));
  command.add_flag("--quick", options.quick, "a short sweep (under a minute)");
  add_output_option(command, "--report", options.report,
                    "also write an HTML report: measured against fitted, held-out error");
}

Model checked_model(const CalibrateOptions& options) {
  if (options.out.empty()) throw InputError("command line", "--out", "the calibration JSON to write (or --from FILE)");
  OutputSet outputs;  // checked only: the measuring run writes them
  add_model_inputs(outputs, options.model);
  add_output_if_given(outputs, "--out", options.out);
  add_output_if_given(outputs, "--report", options.report);
  return load_model(options.model);
}

std::vector<std::string> measuring_arguments(const CalibrateOptions& options) {
  std::vector<std::string> arguments;
  if (!options.model.model_file.empty()) arguments.insert(arguments.end(), {"--model", options.model.model_file});
  if (!options.model.hf_config_file.empty()) {
    arguments.insert(arguments.end(), {"--hf-config", options.model.hf_config_file});
  }
  arguments.insert(arguments.end(), {"--out", options.out});
  if (options.gpus > 0) arguments.insert(arguments.end(), {"--gpus", std::to_string(options.gpus)});
  if (options.quick) arguments.emplace_back("--quick");
  if (!options.report.empty()) arguments.insert(arguments.end(), {"--report", options.report});
  return arguments;
}

std::string report_html(const std::string& report, const calib::Calibration& calibration) {
  if (report.empty()) return "";
  return report::calibration_report_html(report::calibration_report_input(calibration));
}

void finish(const std::string& out, const std::string& report, const calib::Calibration& calibration,
            const std::string& html) {
  fmt::print("{}\n", report::calibration_summary(calibration));
  if (!out.empty()) {
    fmt::print("wrote {} ({} measurements, {})\n", out, calibration.measurements.size(), calibration.measured_on);
  }
  if (html.empty()) return;
  write_file_atomically(report, html);
  fmt::print("wrote {}\n", report);
}

}  // namespace moeplan::cli
