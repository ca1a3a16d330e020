// moeplan fit-engine: an engine profile (efficiencies and overheads) fitted to measured serving runs,
// with its error held out by whole sweeps.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "io/atomic_file.hpp"
#include "io/input_error.hpp"
#include "predict/run_report.hpp"

namespace moeplan::cli {

namespace {

struct FitOptions {
  std::vector<std::string> runs;
  std::string engine;
  std::string out;
  std::string models = "models";
  std::string start;
  std::int64_t folds = 5;
};

void check_paths(const FitOptions& options) {
  for (const std::string& runs : options.runs) {
    if (same_file(options.out, runs)) {
      throw InputError("command line", "--out", "a file other than --runs (" + runs + "), which it would overwrite");
    }
  }
  if (!options.start.empty() && same_file(options.out, options.start)) {
    throw InputError("command line", "--out", "a file other than --start (" + options.start + ")");
  }
}

std::vector<predict::MeasuredRun> read_all(const std::vector<std::string>& files) {
  std::vector<predict::MeasuredRun> runs;
  for (const std::string& file : files) {
    std::vector<predict::MeasuredRun> more = predict::read_measured_runs(file);
    runs.insert(runs.end(), more.begin(), more.end());
  }
  return runs;
}

void run(const FitOptions& options) {
  check_paths(options);
  const std::vector<predict::MeasuredRun> runs = read_all(options.runs);
  const predict::ModelCatalog catalog = predict::ModelCatalog::load_folder(options.models);
  predict::Predictor predictor(catalog, predict::ProfileSet({}));
  const predict::FitSet set = predict::fit_samples(runs, predictor, options.engine);
  if (set.samples.size() < 8) {
    throw InputError(
        options.runs.front(), "backend",
        fmt::format("at least 8 predictable {} runs to fit, found {}", options.engine, set.samples.size()));
  }
  predict::EngineProfile start = options.start.empty() ? predict::default_engine_profile(options.engine)
                                                       : predict::read_engine_profile(options.start);
  predict::EngineProfile profile = predict::fit_profile(set.samples, start);
  profile.held_out = predict::cross_validate(set.samples, start, options.folds);
  profile.source =
      fmt::format("fit-engine over {} {} runs (left out {})", set.samples.size(), options.engine, set.left_out.size());
  write_file_atomically(options.out, predict::engine_profile_json(profile));
  const predict::HeldOutError& held = profile.held_out;
  fmt::print(
      "{}: fitted to {} runs ({} left out), held out by whole sweeps in {} folds:\n"
      "  TPOT median error {:.1f} %, mean {:.1f} %; TTFT median error {:.1f} %, mean {:.1f} %\nwrote {}\n",
      options.engine, set.samples.size(), set.left_out.size(), held.folds, held.tpot_median, held.tpot_mean,
      held.ttft_median, held.ttft_mean, options.out);
}

}  // namespace

void add_fit_engine_command(CLI::App& app) {
  auto options = std::make_shared<FitOptions>();
  auto* command =
      app.add_subcommand("fit-engine", "Fit an engine profile to measured serving runs, with its held-out error");
  command->add_option("--runs", options->runs, "measured runs CSV files")->required()->check(CLI::ExistingFile);
  command->add_option("--engine", options->engine, "engine whose runs to fit")
      ->required()
      ->check(CLI::IsMember({"sglang", "vllm", "trtllm"}));
  command->add_option("--out", options->out, "profile JSON to write")->required();
  command->add_option("--models", options->models, "folder of model YAMLs, matched by hf_id")->capture_default_str();
  command->add_option("--start", options->start, "profile to start from (default: the engine's defaults)")
      ->check(CLI::ExistingFile);
  command->add_option("--folds", options->folds, "cross-validation folds over whole sweeps")
      ->capture_default_str()
      ->check(CLI::Range(2, 20));
  command->footer("Example:\n  moeplan fit-engine --runs runs.csv --engine sglang --out engines/sglang.json");
  command->callback([options] { run(*options); });
}

}  // namespace moeplan::cli
