// moeplan: plan, place and calibrate Mixture-of-Experts deployments.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>

#include "calibrate_handoff.hpp"
#include "commands.hpp"
#include "completion.hpp"
#include "io/input_error.hpp"
#include "terminal.hpp"

namespace {

constexpr int kBadInputExit = 2;

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
  moeplan::cli::add_completion_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);
  } catch (const CLI::RuntimeError& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return error.get_exit_code();
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kBadInputExit;
  } catch (const moeplan::InputError& error) {
    std::fprintf(stderr, "moeplan: error: %s\n", error.what());
    return kBadInputExit;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "moeplan: internal error: %s\n", error.what());
    return 1;
  }
  return 0;
}
