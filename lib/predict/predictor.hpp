#pragma once
// Predicts measured runs: resolves each row to a deployment, prices it with the step model and the
// engine's profile, and says why when it cannot.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cost/engine_profile.hpp"
#include "predict/closed_loop.hpp"
#include "predict/measured_runs.hpp"
#include "predict/residuals.hpp"
#include "predict/run_costs.hpp"
#include "predict/run_deployment.hpp"

namespace moeplan::predict {

struct RunPrediction {
  std::optional<double> ttft_ms, tpot_ms;
  // The held-out median error: the residual level's that corrected the prediction, else the profile's.
  double ttft_band_percent = 0, tpot_band_percent = 0;
  int residual_level = -1;   // the residual level that corrected it (residuals.hpp); -1: none
  std::string reason;        // why there is no prediction
  bool implausible = false;  // the measurement beats the roofline: predicted, kept out of the errors
  std::optional<RunCosts> costs;
};

// Profiles by engine name, read from a folder of <engine>.json files; engines without a file get the
// default profile, flagged as not fitted. The folder's residuals.json, when there is one, gives each
// engine's residual corrections.
class ProfileSet {
 public:
  static ProfileSet load_folder(const std::string& folder);
  // The files load_folder reads: <engine>.json of each engine present in `folder`.
  static std::vector<std::string> folder_files(const std::string& folder);
  explicit ProfileSet(std::map<std::string, EngineProfile> profiles);
  const EngineProfile& get(const std::string& engine);
  // One line per engine: the file its profile came from and how it was fitted, or that the engine
  // falls back to its unfitted defaults.
  std::vector<std::string> describe() const;
  // The engine's residual table, or null when the folder has none for it.
  const ResidualTable* residuals(const std::string& engine) const;
  void set_residuals(std::map<std::string, ResidualTable> residuals) { residuals_ = std::move(residuals); }

 private:
  std::map<std::string, EngineProfile> profiles_;
  std::map<std::string, ResidualTable> residuals_;
  std::string folder_ = "(none)";
};

class Predictor {
 public:
  Predictor(const ModelCatalog& catalog, ProfileSet profiles) : catalog_(catalog), profiles_(std::move(profiles)) {}

  RunPrediction predict(const MeasuredRun& run);
  // The roofline costs alone, without a profile; empty with `reason` set when the run cannot be priced.
  std::optional<RunCosts> costs(const MeasuredRun& run, std::string& reason);
  ProfileSet& profiles() { return profiles_; }
  // Runs on `preset` are priced on measured ceilings instead of the roofline (StepModelCache).
  void set_ceilings(const std::string& preset, PresetCeilings ceilings) {
    steps_.set_ceilings(preset, std::move(ceilings));
  }
  std::vector<std::string> ceiling_names() const { return steps_.ceiling_names(); }
  // Only runs on these GPU presets are priced (others get a reason): a profile sits on one set of
  // ceilings, so runs on GPUs priced at the datasheet stay out of a profile over measured ones.
  void only_presets(std::vector<std::string> presets) { only_presets_ = std::move(presets); }

 private:
  const ModelCatalog& catalog_;
  ProfileSet profiles_;
  StepModelCache steps_;
  std::vector<std::string> only_presets_;
};

// Whether a measured TPOT is below what the roofline allows at 100 % of every ceiling (collectives at
// their one-shot floor) with no overhead
// (with `margin` for measurement noise): such a run is broken rather than fast, and is kept out of fits.
bool below_roofline(const RunCosts& costs, double measured_tpot_seconds, double margin = 0.8);

inline constexpr const char* kImplausibleReason = "measured TPOT below the roofline at 100 % of every ceiling";

// Multiplies a prediction by the residual factors of `key` in `residuals` (none when null or no level
// knows the key) and gives it the band of the level used.
void apply_residuals(const ResidualTable* residuals, const ResidualKey& key, RunPrediction& prediction);

// Flags a predicted run whose measurement is below the roofline, with kImplausibleReason.
void mark_implausible(const MeasuredRun& run, RunPrediction& prediction);

}  // namespace moeplan::predict
