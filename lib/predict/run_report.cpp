#include "predict/run_report.hpp"

#include "predict/layout_choice.hpp"

#include <fmt/format.h>

#include <cmath>
#include "io/csv_text.hpp"

namespace moeplan::predict {

namespace {

std::string optional_cell(const std::optional<double>& value) {
  return value ? fmt::format("{:.4f}", *value) : std::string();
}

}  // namespace

std::string partition_key(const MeasuredRun& run) {
  return run.hf_id + " x " + run.system + " x " + run.engine + " x " + (run.disaggregated ? "disagg" : "agg");
}

std::string predictions_csv(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions) {
  std::string text =
      "id,predicted_ttft_ms,predicted_tpot_ms,ttft_band_percent,tpot_band_percent,measured_ttft_ms,"
      "measured_tpot_ms,reason\n";
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const MeasuredRun& run = runs[index];
    const RunPrediction& prediction = predictions[index];
    const bool predicted = prediction.ttft_ms.has_value();
    // The id and the reason are text: csv_field keeps a ',' or '"' in them (run ids may hold both).
    text += csv_line({csv_field(run.id), optional_cell(prediction.ttft_ms), optional_cell(prediction.tpot_ms),
                      predicted ? fmt::format("{:.1f}", prediction.ttft_band_percent) : "",
                      predicted ? fmt::format("{:.1f}", prediction.tpot_band_percent) : "", optional_cell(run.ttft_ms),
                      optional_cell(run.tpot_ms), csv_field(prediction.reason)});
  }
  return text;
}

ErrorTable error_table(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions) {
  ErrorTable table;
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const MeasuredRun& run = runs[index];
    const RunPrediction& prediction = predictions[index];
    if (prediction.implausible || !prediction.ttft_ms || !run.ttft_ms || !run.tpot_ms || *run.ttft_ms <= 0 ||
        *run.tpot_ms <= 0)
      continue;
    table.add(partition_key(run), {*prediction.ttft_ms, *run.ttft_ms}, {*prediction.tpot_ms, *run.tpot_ms});
  }
  return table;
}

FitSet fit_samples(const std::vector<MeasuredRun>& runs, Predictor& predictor, const std::string& engine) {
  FitSet set;
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const MeasuredRun& run = runs[index];
    if (run.engine != engine) continue;
    std::string reason;
    const std::optional<RunCosts> costs = predictor.costs(run, reason);
    if (costs && (!run.ttft_ms || !run.tpot_ms || *run.ttft_ms <= 0 || *run.tpot_ms <= 0)) reason = "no measurement";
    if (costs && reason.empty() && below_roofline(*costs, *run.tpot_ms / 1e3)) {
      reason = kImplausibleReason;
    }
    if (!reason.empty()) {
      set.left_out.push_back(run.id + ": " + reason);
      continue;
    }
    set.samples.push_back({*costs, static_cast<double>(run.concurrency), static_cast<double>(run.input_tokens),
                           static_cast<double>(run.output_tokens), *run.ttft_ms / 1e3, *run.tpot_ms / 1e3, run.sweep,
                           index});
  }
  return set;
}

}  // namespace moeplan::predict

namespace moeplan::predict {

std::string held_out_group(const MeasuredRun& run, HoldOut hold_out) {
  switch (hold_out) {
    case HoldOut::partition: return partition_key(run);
    case HoldOut::alternatives: return layout_alternatives_key(run);
    case HoldOut::sweep: return run.sweep;
  }
  return run.sweep;
}

namespace {

LoopPrediction loop_for(const MeasuredRun& run, const RunCosts& costs, const EngineProfile& profile) {
  return predict_closed_loop(costs, profile, static_cast<double>(run.concurrency),
                             static_cast<double>(run.input_tokens), static_cast<double>(run.output_tokens));
}

// The residuals of the training samples under `profile`: log(measured / predicted) of each.
std::vector<ResidualSample> training_residuals(const std::vector<MeasuredRun>& runs,
                                               const std::vector<FitSample>& training, const EngineProfile& profile) {
  std::vector<ResidualSample> samples;
  for (const FitSample& sample : training) {
    const LoopPrediction loop = loop_for(runs[sample.run], sample.costs, profile);
    samples.push_back(
        {residual_key(runs[sample.run]), std::log(sample.ttft / loop.ttft), std::log(sample.tpot / loop.tpot)});
  }
  return samples;
}

// One fold of one engine: the profile and residuals fitted to `training`, the runs of the fold predicted.
void predict_fold(const std::vector<MeasuredRun>& runs, const std::vector<FitSample>& training,
                  const HeldOutOptions& options, const std::string& engine, std::int64_t fold,
                  std::vector<RunPrediction>& predictions) {
  const EngineProfile profile = fit_profile(training, default_engine_profile(engine));
  const ResidualTable residuals =
      options.residuals ? fit_residuals(training_residuals(runs, training, profile), options.folds) : ResidualTable{};
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const MeasuredRun& run = runs[index];
    RunPrediction& prediction = predictions[index];
    if (run.engine != engine || !prediction.costs ||
        fold_of(held_out_group(run, options.hold_out), options.folds) != fold)
      continue;
    const LoopPrediction loop = loop_for(run, *prediction.costs, profile);
    const ResidualFactors factors = residuals.factors(residual_key(run));
    prediction.ttft_ms = loop.ttft * factors.ttft * 1e3;
    prediction.tpot_ms = loop.tpot * factors.tpot * 1e3;
    prediction.residual_level = factors.level;
    prediction.ttft_band_percent = factors.ttft_band_percent;
    prediction.tpot_band_percent = factors.tpot_band_percent;
    mark_implausible(run, prediction);
  }
}

}  // namespace

std::vector<ResidualSample> profile_residuals(const std::vector<MeasuredRun>& runs, const FitSet& set,
                                              const EngineProfile& profile) {
  return training_residuals(runs, set.samples, profile);
}

std::vector<RunPrediction> held_out_predictions(const std::vector<MeasuredRun>& runs, Predictor& predictor,
                                                const HeldOutOptions& options) {
  std::vector<RunPrediction> predictions(runs.size());
  for (std::size_t index = 0; index < runs.size(); ++index) {
    predictions[index].costs = predictor.costs(runs[index], predictions[index].reason);
  }
  for (const std::string& engine : profiled_engine_names()) {
    FitSet set = fit_samples(runs, predictor, engine);
    for (FitSample& sample : set.samples) sample.sweep = held_out_group(runs[sample.run], options.hold_out);
    check_fit_budget(set.samples.size(), options.folds, "--held-out");
    const std::vector<std::int64_t> sample_folds = sweep_folds(set.samples, options.folds);
    for (std::int64_t fold = 0; fold < options.folds; ++fold) {
      std::vector<FitSample> training;
      for (std::size_t k = 0; k < set.samples.size(); ++k) {
        if (sample_folds[k] != fold) training.push_back(set.samples[k]);
      }
      if (training.size() >= 8) predict_fold(runs, training, options, engine, fold, predictions);
    }
  }
  return predictions;
}

}  // namespace moeplan::predict
