// moeplan predict-runs: mean TTFT and TPOT for every measured serving run of a CSV, with the error
// against the measurement per partition (model x GPU x engine x mode) and overall.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "commands.hpp"
#include "io/input_error.hpp"
#include "outputs.hpp"
#include "predict/calibration_effect.hpp"
#include "predict/run_report.hpp"
#include "predict/version_spread.hpp"
#include "run_ceilings.hpp"
#include "table.hpp"

namespace moeplan::cli {

namespace {

struct PredictOptions {
  std::string runs;
  std::string out;
  std::string models = "models";
  std::string engines = "engines";
  std::int64_t held_out_folds = 0;
  bool by_partition = false;
  RunCeilingsInput ceilings;
};

std::string percent(double value) { return fmt::format("{:.1f}", value); }
std::string signed_percent(double value) { return fmt::format("{:+.1f}", value); }

void add_error_row(Table& table, const std::string& name, const predict::PartitionErrors& errors) {
  table.add_row({name, fmt::format("{}", errors.tpot.count), percent(errors.tpot.median_absolute),
                 percent(errors.tpot.mean_absolute), signed_percent(errors.tpot.median_signed),
                 percent(errors.ttft.median_absolute), percent(errors.ttft.mean_absolute),
                 signed_percent(errors.ttft.median_signed)});
}

std::string error_report(const predict::ErrorTable& errors) {
  Table table({"partition (model x GPU x engine x mode)", "runs", "TPOT med |err| %", "mean %", "med signed %",
               "TTFT med |err| %", "mean %", "med signed %"});
  for (const auto& [partition, partition_errors] : errors.partitions())
    add_error_row(table, partition, partition_errors);
  table.add_rule();
  add_error_row(table, "overall", errors.overall());
  return table.render();
}

std::string spread_line(const predict::VersionSpread& spread) {
  if (spread.pairs == 0) return "no deployment measured at one load under two engine versions";
  return fmt::format(
      "the same deployment at the same load under two engine versions ({} pairs): TPOT {:.1f} % apart, TTFT "
      "{:.1f} % (medians)",
      spread.pairs, spread.tpot_median_percent, spread.ttft_median_percent);
}

// A fitted profile must sit on the ceilings the runs are priced on: a profile fitted at the roofline
// would count a calibration's measured shares twice. Unfitted defaults sit on none.
void check_profile_ceilings(const PredictOptions& options, predict::Predictor& predictor) {
  for (const char* engine : {"sglang", "vllm", "trtllm"}) {
    const EngineProfile& profile = predictor.profiles().get(engine);
    const std::string mismatch = predict::ceilings_mismatch(profile, predictor.ceiling_names());
    if (mismatch.empty() || !profile.fitted) continue;
    throw InputError(engine_profile_path(options.engines, engine), "ceilings",
                     "a profile fitted on the ceilings the runs are priced on (fit-engine with the same --calibration "
                     "files and terms, or --held-out), got one " +
                         mismatch);
  }
}

std::vector<predict::RunPrediction> predictions_of(const PredictOptions& options,
                                                   const std::vector<predict::MeasuredRun>& runs,
                                                   predict::Predictor& predictor) {
  if (options.held_out_folds > 0) {
    return predict::held_out_predictions(runs, predictor, options.held_out_folds,
                                         options.by_partition ? predict::HoldOut::partition : predict::HoldOut::sweep);
  }
  check_profile_ceilings(options, predictor);
  std::vector<predict::RunPrediction> predictions;
  for (const predict::MeasuredRun& run : runs) predictions.push_back(predictor.predict(run));
  return predictions;
}

void add_effect_row(Table& table, const std::string& name, const std::string& ceilings,
                    const predict::PartitionErrors& errors) {
  table.add_row({name, ceilings, fmt::format("{}", errors.tpot.count), percent(errors.tpot.median_absolute),
                 percent(errors.tpot.mean_absolute), percent(errors.ttft.median_absolute),
                 percent(errors.ttft.mean_absolute)});
}

// The same runs held out at the roofline and on the measured ceilings, per calibrated GPU.
std::string calibration_effect_report(const PredictOptions& options, const std::vector<predict::MeasuredRun>& runs,
                                      const predict::ModelCatalog& catalog,
                                      const std::vector<predict::RunPrediction>& calibrated) {
  const std::vector<std::string> presets = calibrated_presets(options.ceilings);
  predict::Predictor every_gpu(catalog, predict::ProfileSet::load_folder(options.engines));
  const std::vector<predict::RunPrediction> today = predictions_of(options, runs, every_gpu);
  predict::Predictor same_gpus(catalog, predict::ProfileSet::load_folder(options.engines));
  same_gpus.only_presets(presets);
  const std::vector<predict::RunPrediction> uncalibrated = predictions_of(options, runs, same_gpus);
  const std::vector<predict::CalibrationEffect> before = predict::calibration_effect(runs, today, calibrated, presets);
  const std::vector<predict::CalibrationEffect> after =
      predict::calibration_effect(runs, uncalibrated, calibrated, presets);
  Table table(
      {"GPU", "ceilings (profile fitted on)", "runs", "TPOT med |err| %", "mean %", "TTFT med |err| %", "mean %"});
  for (std::size_t index = 0; index < after.size(); ++index) {
    add_effect_row(table, after[index].preset, "datasheet roofline (every GPU's runs)", before[index].without);
    add_effect_row(table, "", "datasheet roofline (these GPUs' runs)", after[index].without);
    add_effect_row(table, "", "calibrated, " + options.ceilings.terms + " (these GPUs' runs)", after[index].with);
  }
  return fmt::format(
      "\nthe calibration's effect on the runs of the GPUs it measured, held out in {} folds by {}, "
      "each side's profiles fitted on its own ceilings:\n{}",
      options.held_out_folds, options.by_partition ? "partition" : "deployment", table.render());
}

void run(const PredictOptions& options) {
  if (options.by_partition && options.held_out_folds == 0) {
    throw InputError("command line", "--by-partition", "--held-out N as well (it chooses what --held-out leaves out)");
  }
  OutputSet outputs;
  outputs.add_input("--runs", options.runs);
  // Every file the folders hold that is read: each model YAML with its base, each engine profile.
  for (const auto& file : predict::ModelCatalog::folder_files(options.models)) outputs.add_input("--models", file);
  for (const auto& file : predict::ProfileSet::folder_files(options.engines)) outputs.add_input("--engines", file);
  for (const std::string& file : options.ceilings.calibrations) outputs.add_input("--calibration", file);
  outputs.add_file("--out", options.out);
  const std::vector<predict::MeasuredRun> runs = predict::read_measured_runs(options.runs);
  const predict::ModelCatalog catalog = predict::ModelCatalog::load_folder(options.models);
  predict::Predictor predictor(catalog, predict::ProfileSet::load_folder(options.engines));
  apply_run_ceilings(options.ceilings, predictor);
  const std::vector<predict::RunPrediction> predictions = predictions_of(options, runs, predictor);
  const bool compare = options.held_out_folds > 0 && !options.ceilings.calibrations.empty();
  const std::string effect = compare ? calibration_effect_report(options, runs, catalog, predictions) : "";
  outputs.set_contents("--out", predict::predictions_csv(runs, predictions));
  outputs.write_temporaries();
  const predict::ErrorTable errors = predict::error_table(runs, predictions);
  const std::int64_t predicted = errors.overall().tpot.count;
  fmt::print(
      "{} runs read from {}: {} predicted against their measurement, {} without a prediction (reasons in {})\n"
      "ceilings: {}\nengine profiles{}:\n  {}\n{}\n\n{}{}",
      runs.size(), options.runs, predicted, runs.size() - static_cast<std::size_t>(predicted), options.out,
      ceilings_description(predictor.ceiling_names()),
      options.held_out_folds > 0 ? " (refitted on each fold's training runs)" : "",
      fmt::join(predictor.profiles().describe(), "\n  "), spread_line(predict::version_spread(runs)),
      error_report(errors), effect);
  commit_outputs(outputs);
}

}  // namespace

void add_predict_runs_command(CLI::App& app) {
  auto options = std::make_shared<PredictOptions>();
  auto* command = app.add_subcommand("predict-runs",
                                     "Predict measured serving runs (mean TTFT and TPOT) and report the error "
                                     "per model x GPU x engine x mode");
  command->add_option("--runs", options->runs, "measured runs CSV (docs/prediction.md gives the columns)")
      ->required()
      ->check(CLI::ExistingFile);
  add_output_option(*command, "--out", options->out, "predictions CSV to write")->required();
  command->add_option("--models", options->models, "folder of model YAMLs, matched by hf_id")->capture_default_str();
  command->add_option("--engines", options->engines, "folder of engine profiles (<engine>.json)")
      ->capture_default_str();
  command
      ->add_option("--held-out", options->held_out_folds,
                   "ignore the shipped profiles: predict each run by a profile fitted without its sweep, "
                   "in this many folds (the validation of the profiles)")
      ->check(CLI::Range(2, 20));
  command->add_flag("--by-partition", options->by_partition,
                    "with --held-out: hold out whole model x GPU x engine x mode partitions, not deployments");
  add_run_ceilings_options(*command, options->ceilings);
  command->footer(
      "Example:\n  moeplan predict-runs --runs runs.csv --out predictions.csv\n"
      "  moeplan predict-runs --runs runs.csv --out predictions.csv --held-out 5 \\\n"
      "      --calibration validation/data/calibration_1xh100.json --calibration "
      "validation/data/calibration_4xh200.json");
  command->callback([options] { run(*options); });
}

}  // namespace moeplan::cli
