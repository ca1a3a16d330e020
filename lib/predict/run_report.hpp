#pragma once
// What predict-runs and fit-engine write: the predictions CSV, the error table by partition, and the
// samples a profile is fitted to.
#include <string>
#include <vector>

#include "predict/measured_runs.hpp"
#include "predict/prediction_errors.hpp"
#include "predict/predictor.hpp"
#include "predict/profile_fit.hpp"
#include "predict/residuals.hpp"

namespace moeplan::predict {

// "model x GPU x engine x mode", the partition a run's errors are reported under.
std::string partition_key(const MeasuredRun& run);

// id, predicted_ttft_ms, predicted_tpot_ms, their bands, the measured values, and the reason for a row
// without a prediction. `runs` and `predictions` run in parallel.
std::string predictions_csv(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions);

// Errors of every predicted run that has both measurements.
ErrorTable error_table(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions);

// The fit samples of one engine's runs, and a line per run left out (no prediction, no measurement,
// or a TPOT below the roofline).
struct FitSet {
  std::vector<FitSample> samples;
  std::vector<std::string> left_out;  // "id: reason"
};
FitSet fit_samples(const std::vector<MeasuredRun>& runs, Predictor& predictor, const std::string& engine);

// What is held out together: a deployment at all its concurrencies; a deployment with its layout
// alternatives (every layout of one model, formats, GPU type and count, engine and version, mode and
// lengths: the layouts a choice compares come from one fit); or a whole model x GPU x engine x mode
// partition (the stricter test: a combination the fit never saw).
enum class HoldOut { sweep, alternatives, partition };
std::string held_out_group(const MeasuredRun& run, HoldOut hold_out);

// How held_out_predictions holds out: `folds` folds of `hold_out` groups, with or without the residual
// hierarchy (fitted on each fold's training runs, its shrinkage chosen by folds of those runs).
struct HeldOutOptions {
  std::int64_t folds = 5;
  HoldOut hold_out = HoldOut::sweep;
  bool residuals = true;
};

// Every run predicted by a profile fitted without its group: per engine, the groups split into `folds`
// by fold_of, each fold predicted by a fit to the others from the engine's default profile, then
// corrected by residuals fitted to the others' errors under that profile. Runs whose engine has fewer
// than 8 usable runs outside their fold stay unpredicted.
std::vector<RunPrediction> held_out_predictions(const std::vector<MeasuredRun>& runs, Predictor& predictor,
                                                const HeldOutOptions& options);

// The residual samples of an engine's runs under `profile`: the fit samples of fit_samples, each with
// log(measured / predicted). For fit-engine's residuals.
std::vector<ResidualSample> profile_residuals(const std::vector<MeasuredRun>& runs, const FitSet& set,
                                              const EngineProfile& profile);

}  // namespace moeplan::predict
