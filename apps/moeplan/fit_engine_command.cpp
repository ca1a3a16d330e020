// moeplan fit-engine: an engine profile (efficiencies and overheads) fitted to measured serving runs,
// with its error held out by whole sweeps.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <memory>

#include "commands.hpp"
#include "io/input_error.hpp"
#include "outputs.hpp"
#include "predict/bench_results.hpp"
#include "predict/profile_fit.hpp"
#include "predict/residuals.hpp"
#include "predict/run_report.hpp"
#include "run_ceilings.hpp"
#include "spec/layout.hpp"

namespace moeplan::cli {

namespace fit_engine_command {

struct FitOptions {
  std::vector<std::string> runs;
  std::string engine;
  std::string out;
  std::string models = shipped_models_folder();
  std::string start;
  std::int64_t folds = 5;
  std::vector<std::string> bench;
  std::string bench_layout;
  std::string residuals;        // residual tables to write
  std::string start_residuals;  // residual tables to start from
  predict::BenchDeployment bench_deployment;
  RunCeilingsInput ceilings;
};

// --out, checked against every input (--runs, --bench, --start, the model YAMLs of --models and their
// bases) before any work.
void add_outputs(OutputSet& outputs, const FitOptions& options) {
  for (const auto& file : predict::ModelCatalog::folder_files(options.models)) outputs.add_input("--models", file);
  for (const std::string& file : options.runs) outputs.add_input("--runs", file);
  for (const std::string& file : options.bench) outputs.add_input("--bench", file);
  for (const std::string& file : options.ceilings.calibrations) outputs.add_input("--calibration", file);
  outputs.add_input("--start", options.start);
  outputs.add_input("--start-residuals", options.start_residuals);
  outputs.add_file("--out", options.out);
  add_output_if_given(outputs, "--residuals", options.residuals);
}

std::map<std::string, predict::ResidualTable> start_residuals(const FitOptions& options) {
  if (options.start_residuals.empty()) return {};
  return predict::read_residual_file(options.start_residuals);
}

// Only --bench runs and --residuals: the --start profile stays, and the bench runs enter the engine's
// residual table of --start-residuals as their own deployment, the deepest level.
void add_bench_deployment(const FitOptions& options, const std::vector<predict::MeasuredRun>& runs,
                          predict::Predictor& predictor, OutputSet& outputs) {
  if (options.start.empty() || options.start_residuals.empty()) {
    throw InputError("command line", "--start-residuals",
                     "--start and --start-residuals with --bench alone and --residuals: the profile and the residual "
                     "tables the benchmark runs correct");
  }
  const EngineProfile profile = read_engine_profile(options.start);
  const predict::FitSet set = predict::fit_samples(runs, predictor, options.engine);
  if (set.samples.empty()) throw InputError(options.bench.front(), "runs", "at least one predictable benchmark run");
  std::map<std::string, predict::ResidualTable> tables = start_residuals(options);
  const auto found = tables.find(options.engine);
  if (found == tables.end()) {
    throw InputError(options.start_residuals, "engines." + options.engine, "a residual table for the engine");
  }
  found->second.add_deployments(predict::profile_residuals(runs, set, profile));
  outputs.set_contents("--out", engine_profile_json(profile));
  outputs.set_contents("--residuals", predict::residual_file_json(tables));
  outputs.write_temporaries();
  fmt::print(
      "{}: {} benchmark runs added to the residuals as their own deployment; the profile is --start's\nwrote {} and "
      "{}\n",
      options.engine, set.samples.size(), options.out, options.residuals);
  commit_outputs(outputs);
}

// The bench files' deployment: the layout given as moeplan writes it ("tp=8,dp=1,ep=8").
predict::BenchDeployment bench_deployment(const FitOptions& options) {
  for (const char* key : {"--bench-model-id", "--bench-system", "--bench-layout"}) {
    const std::string& value = std::string(key) == "--bench-model-id" ? options.bench_deployment.hf_id
                               : std::string(key) == "--bench-system" ? options.bench_deployment.system
                                                                      : options.bench_layout;
    if (value.empty()) throw InputError("command line", key, "the deployment the --bench results were measured on");
  }
  predict::BenchDeployment deployment = options.bench_deployment;
  deployment.engine = options.engine;
  const Layout layout = parse_layout(options.bench_layout, "--bench-layout");
  deployment.worker = {layout.tp, 1, layout.dp, layout.moe_tp(), layout.ep, 0, 1};
  return deployment;
}

std::vector<predict::MeasuredRun> read_all(const FitOptions& options) {
  std::vector<predict::MeasuredRun> runs;
  for (const std::string& file : options.runs) {
    std::vector<predict::MeasuredRun> more = predict::read_measured_runs(file);
    runs.insert(runs.end(), more.begin(), more.end());
  }
  if (options.bench.empty()) return runs;
  const predict::BenchDeployment deployment = bench_deployment(options);
  for (const std::string& file : options.bench) {
    std::vector<predict::MeasuredRun> more = predict::read_bench_results(file, deployment);
    runs.insert(runs.end(), more.begin(), more.end());
  }
  return runs;
}

std::string residual_bands(const predict::ResidualTable& table) {
  std::vector<std::string> levels;
  for (int level = 0; level < predict::kResidualLevels; ++level) {
    const predict::ResidualFactors band = table.level_band(level);
    levels.push_back(fmt::format("{} {:.1f} / {:.1f}", predict::residual_level_name(level), band.ttft_band_percent,
                                 band.tpot_band_percent));
  }
  return fmt::format("{}", fmt::join(levels, "; "));
}

void run(const FitOptions& options) {
  OutputSet outputs;
  add_outputs(outputs, options);
  if (options.runs.empty() && options.bench.empty()) {
    throw InputError("command line", "--runs", "a measured-runs CSV or --bench result files to fit");
  }
  const std::vector<predict::MeasuredRun> runs = read_all(options);
  const predict::ModelCatalog catalog = predict::ModelCatalog::load_folder(options.models);
  predict::Predictor predictor(catalog, predict::ProfileSet({}));
  apply_run_ceilings(options.ceilings, predictor);
  if (options.runs.empty() && !options.residuals.empty())
    return add_bench_deployment(options, runs, predictor, outputs);
  const predict::FitSet set = predict::fit_samples(runs, predictor, options.engine);
  if (set.samples.size() < 8) {
    // The form --help shows gives only --bench: name whichever the runs came from.
    throw InputError(
        options.runs.empty() ? options.bench.front() : options.runs.front(),
        options.runs.empty() ? "(runs)" : "backend",
        fmt::format("at least 8 predictable {} runs to fit, found {}", options.engine, set.samples.size()));
  }
  EngineProfile start =
      options.start.empty() ? default_engine_profile(options.engine) : read_engine_profile(options.start);
  start.ceilings = predictor.ceiling_names();
  predict::check_fit_budget(set.samples.size(), options.folds + 1, "--runs");
  EngineProfile profile = predict::fit_profile(set.samples, start);
  profile.held_out = predict::cross_validate(set.samples, start, options.folds);
  profile.source =
      fmt::format("fit-engine over {} {} runs (left out {})", set.samples.size(), options.engine, set.left_out.size());
  outputs.set_contents("--out", engine_profile_json(profile));
  std::string residual_line;
  if (!options.residuals.empty()) {
    std::map<std::string, predict::ResidualTable> tables = start_residuals(options);
    const predict::ResidualTable table =
        predict::fit_residuals(predict::profile_residuals(runs, set, profile), options.folds);
    residual_line = fmt::format("residuals: {} cells, shrinkage {}, bands (TTFT / TPOT %) {}\n", table.cells(),
                                table.shrinkage(), residual_bands(table));
    tables.insert_or_assign(options.engine, table);
    outputs.set_contents("--residuals", predict::residual_file_json(tables));
  }
  outputs.write_temporaries();
  const HeldOutError& held = profile.held_out;
  fmt::print(
      "{}: fitted to {} runs ({} left out), held out by whole sweeps in {} folds:\n"
      "  TPOT median error {:.1f} %, mean {:.1f} %; TTFT median error {:.1f} %, mean {:.1f} %\nceilings: {}\n"
      "wrote {}\n",
      options.engine, set.samples.size(), set.left_out.size(), held.folds, held.tpot_median, held.tpot_mean,
      held.ttft_median, held.ttft_mean, ceilings_description(profile.ceilings), options.out);
  if (!residual_line.empty()) fmt::print("{}wrote {}\n", residual_line, options.residuals);
  commit_outputs(outputs);
}

void add(CLI::App& app) {
  auto options = std::make_shared<FitOptions>();
  auto* command =
      app.add_subcommand("fit-engine", "Fit an engine profile to measured serving runs, with its held-out error");
  command->add_option("--runs", options->runs, "measured runs CSV files")->check(CLI::ExistingFile);
  command
      ->add_option("--bench", options->bench,
                   "benchmark results: SGLang bench_serving --output-file (JSONL) or vLLM bench serve --save-result")
      ->check(CLI::ExistingFile);
  command->add_option("--bench-model-id", options->bench_deployment.hf_id, "Hugging Face id the --bench runs served");
  command->add_option("--bench-system", options->bench_deployment.system,
                      "GPU system of the --bench runs (h100_sxm, h200_sxm, b200_sxm, ...)");
  command->add_option("--bench-layout", options->bench_layout, "layout of the --bench server, e.g. tp=8,dp=1,ep=8");
  command->add_option("--bench-version", options->bench_deployment.engine_version,
                      "engine version of the --bench runs");
  command->add_option("--engine", options->engine, "engine whose runs to fit")
      ->required()
      ->check(CLI::IsMember(profiled_engine_names()));
  add_output_option(*command, "--out", options->out, "profile JSON to write")->required();
  command->add_option("--models", options->models, "folder of model YAMLs, matched by hf_id")->capture_default_str();
  command->add_option("--start", options->start, "profile to start from (default: the engine's defaults)")
      ->check(CLI::ExistingFile);
  add_output_option(*command, "--residuals", options->residuals,
                    "residual tables to write (engines/residuals.json): the engine's fitted beside the profile, "
                    "the others' kept from --start-residuals; with --bench alone, the bench runs added as their "
                    "own deployment");
  command->add_option("--start-residuals", options->start_residuals, "residual tables to start from")
      ->check(CLI::ExistingFile);
  command->add_option("--folds", options->folds, "cross-validation folds over whole sweeps")
      ->capture_default_str()
      ->check(CLI::Range(2, 20));
  add_run_ceilings_options(*command, options->ceilings);
  command->footer(
      "Example:\n  moeplan fit-engine --runs runs.csv --engine sglang --out engines/sglang.json\n"
      "  moeplan fit-engine --runs runs.csv --engine sglang --calibration validation/data/calibration_4xh200.json "
      "--out sglang-h200.json\n"
      "  moeplan fit-engine --engine sglang --bench results.jsonl --bench-model-id deepseek-ai/DeepSeek-V3 "
      "--bench-system h200_sxm --bench-layout tp=8,ep=8 --start engines/sglang.json --out my-sglang.json");
  command->callback([options] { run(*options); });
}

}  // namespace fit_engine_command

void add_fit_engine_command(CLI::App& app) { fit_engine_command::add(app); }

}  // namespace moeplan::cli
