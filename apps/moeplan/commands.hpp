#pragma once
// Each subcommand lives in its own file and registers itself on the top-level app.
#include <CLI/CLI.hpp>

namespace moeplan::cli {

void add_memory_command(CLI::App& app);
void add_plan_deploy_command(CLI::App& app);
void add_eplb_solve_command(CLI::App& app);
void add_eplb_simulate_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_predict_runs_command(CLI::App& app);
void add_fit_engine_command(CLI::App& app);

}  // namespace moeplan::cli
