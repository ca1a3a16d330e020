// moeplan predict-runs: mean TTFT and TPOT for every measured serving run of a CSV, with the error
// against the measurement per partition (model x GPU x engine x mode) and overall.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "commands.hpp"
#include "io/input_error.hpp"
#include "outputs.hpp"
#include "predict/calibration_effect.hpp"
#include "predict/held_out_floors.hpp"
#include "predict/layout_choice.hpp"
#include "predict/run_report.hpp"
#include "predict/version_spread.hpp"
#include "run_ceilings.hpp"
#include "table.hpp"

namespace moeplan::cli {

namespace predict_runs_command {

struct PredictOptions {
  std::string runs;
  std::string out;
  std::string models = shipped_models_folder();
  std::string engines = shipped_engines_folder();
  std::int64_t held_out_folds = 0;
  bool by_partition = false;
  bool no_residuals = false;
  bool with_alternatives = false;
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
  const std::string versions =
      spread.pairs == 0
          ? "no deployment measured at one load under two engine versions"
          : fmt::format(
                "the same deployment at the same load under two engine versions ({} pairs): TPOT {:.1f} % "
                "apart, TTFT {:.1f} % (medians)",
                spread.pairs, spread.tpot_median_percent, spread.ttft_median_percent);
  if (spread.repeat_pairs == 0) return versions;
  return versions + fmt::format(
                        "\nrepeated under one version ({} pairs): output tokens/s per GPU {:.2f} % apart (median), "
                        "{:.1f} % at the 75th percentile, {:.1f} % at the 90th",
                        spread.repeat_pairs, spread.repeat_throughput_median_percent,
                        spread.repeat_throughput_p75_percent, spread.repeat_throughput_p90_percent);
}

std::string choice_summary(const predict::LayoutChoiceReport& report) {
  if (report.groups.empty()) return "layout choice: no runs that share everything but the layout\n";
  const auto share = [](std::int64_t part, std::int64_t whole) {
    return whole > 0 ? fmt::format("{:.0f} %", 100.0 * static_cast<double>(part) / static_cast<double>(whole))
                     : std::string("-");
  };
  return fmt::format(
      "layout choice (runs sharing model, formats, GPU type and count, engine and version, mode, lengths and "
      "concurrency; output tokens/s per GPU):\n"
      "  {} groups: the predicted best layout measured best in {} of them ({}); in {} of the {} groups whose "
      "winner leads by more than {:.0f} % ({}); following the prediction loses {:.1f} % of the measured best "
      "on average, {:.1f} % at worst\n",
      report.groups.size(), report.right, share(report.right, static_cast<std::int64_t>(report.groups.size())),
      report.decisive_right, report.decisive, predict::kDecisiveLeadPercent,
      share(report.decisive_right, report.decisive), report.mean_lost_percent, report.worst_lost_percent);
}

std::string choice_table(const predict::LayoutChoiceReport& report) {
  Table table({"group (model formats GPU xN engine version mode isl/osl concurrency)", "layouts", "measured best",
               "predicted best", "lead %", "lost %"});
  for (const predict::LayoutChoiceGroup& group : report.groups) {
    table.add_row({group.key, fmt::format("{}", group.options.size()), group.options[group.measured_best].layout,
                   group.options[group.predicted_best].layout, percent(group.lead_percent),
                   percent(group.lost_percent)});
  }
  return table.render();
}

std::string share_text(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? fmt::format("{:.0f} %", 100.0 * static_cast<double>(part) / static_cast<double>(whole))
                   : std::string("-");
}

std::string coverage_text(const predict::BandCoverage& coverage) {
  return fmt::format("{} of {} partitions within 35-65 % (from {:.0f} to {:.0f} %)", coverage.within,
                     coverage.partitions, coverage.least_percent, coverage.most_percent);
}

// The figures issue 43 sets floors for, each beside its floor.
std::string floors_summary(const predict::PartitionErrors& overall, const predict::LayoutChoiceReport& choice,
                           const predict::HeldOutFloors& floors) {
  return fmt::format(
      "floors (partitions of {} or more runs):\n"
      "  layout choice right {} (floor 75 %); where the winner leads by more than 10 %: {} (floor 85 %)\n"
      "  TPOT median {:.1f} % (floor 9), mean {:.1f} % (floor 13); TTFT median {:.1f} % (floor 20), mean {:.1f} % "
      "(floor 30)\n"
      "  worst partition median signed error: TPOT {:+.1f} % ({}), TTFT {:+.1f} % ({}) (floor +-15 %)\n"
      "  printed band covering a partition's runs: TPOT {}; TTFT {}\n",
      predict::kLeastPartitionRuns, share_text(choice.right, static_cast<std::int64_t>(choice.groups.size())),
      share_text(choice.decisive_right, choice.decisive), overall.tpot.median_absolute, overall.tpot.mean_absolute,
      overall.ttft.median_absolute, overall.ttft.mean_absolute, floors.worst_tpot.median_signed_percent,
      floors.worst_tpot.partition, floors.worst_ttft.median_signed_percent, floors.worst_ttft.partition,
      coverage_text(floors.tpot_band), coverage_text(floors.ttft_band));
}

// A fitted profile must sit on the ceilings the runs are priced on: a profile fitted at the roofline
// would count a calibration's measured shares twice. Unfitted defaults sit on none.
void check_profile_ceilings(const PredictOptions& options, predict::Predictor& predictor) {
  for (const std::string& engine : profiled_engine_names()) {
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
    const predict::HeldOutOptions held_out{options.held_out_folds,
                                           options.by_partition        ? predict::HoldOut::partition
                                           : options.with_alternatives ? predict::HoldOut::alternatives
                                                                       : predict::HoldOut::sweep,
                                           !options.no_residuals};
    return predict::held_out_predictions(runs, predictor, held_out);
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
  const predict::LayoutChoiceReport choice = predict::layout_choice(runs, predictions);
  fmt::print("\n{}", choice_summary(choice));
  fmt::print("\n{}", floors_summary(errors.overall(), choice, predict::held_out_floors(runs, predictions)));
  if (!choice.groups.empty()) fmt::print("\n{}", choice_table(choice));
  commit_outputs(outputs);
}

void add(CLI::App& app) {
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
  command->add_flag("--with-alternatives", options->with_alternatives,
                    "with --held-out: hold out each deployment with its layout alternatives (same model, formats, "
                    "GPUs, engine, version, mode and lengths), so the layouts a choice compares share one fit");
  command->add_flag("--no-residuals", options->no_residuals,
                    "with --held-out: the profile alone, without the residual hierarchy fitted beside it");
  add_run_ceilings_options(*command, options->ceilings);
  command->footer(
      "Example:\n  moeplan predict-runs --runs runs.csv --out predictions.csv\n"
      "  moeplan predict-runs --runs runs.csv --out predictions.csv --held-out 5 \\\n"
      "      --calibration validation/data/calibration_1xh100.json --calibration "
      "validation/data/calibration_4xh200.json");
  command->callback([options] { run(*options); });
}

}  // namespace predict_runs_command

void add_predict_runs_command(CLI::App& app) { predict_runs_command::add(app); }

}  // namespace moeplan::cli
