// moeplan: plan, place and calibrate Mixture-of-Experts deployments.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "calibrate_handoff.hpp"
#include "commands.hpp"
#include "completion.hpp"
#include "interrupt.hpp"
#include "run_command_line.hpp"
#include "terminal.hpp"

namespace {

// moeplan itself loads no GPU library; the GPU half of calibrate is a separate executable beside it.
std::string version_text() {
  return fmt::format("moeplan {} (GPU calibration: {})", MOEPLAN_VERSION, moeplan::cli::gpu_calibration_status());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"moeplan: plan, place and calibrate Mixture-of-Experts LLM deployments"};
  app.set_version_flag("--version", version_text);
  app.require_subcommand(1);
  moeplan::cli::add_terminal_options(app);
  app.footer(
      "Example:\n  moeplan plan-deploy --model models/deepseek-v3.yaml --scenario scenarios/deepseek-v3-8xh200.yaml");
  moeplan::cli::add_plan_deploy_command(app);
  moeplan::cli::add_memory_command(app);
  moeplan::cli::add_eplb_solve_command(app);
  moeplan::cli::add_eplb_simulate_command(app);
  moeplan::cli::add_calibrate_command(app);
  moeplan::cli::add_export_command(app);
  moeplan::cli::add_simulate_command(app);
  moeplan::cli::add_predict_runs_command(app);
  moeplan::cli::add_fit_engine_command(app);
  moeplan::cli::add_completion_command(app);
  moeplan::cli::install_interrupt_handler();
  return moeplan::cli::run_command_line(app, argc, argv);
}
