#include "predict/calibration_effect.hpp"

#include <algorithm>

#include "predict/run_deployment.hpp"

namespace moeplan::predict {

namespace {

bool usable(const MeasuredRun& run, const RunPrediction& prediction) {
  return !prediction.implausible && prediction.ttft_ms && prediction.tpot_ms && run.ttft_ms && run.tpot_ms &&
         *run.ttft_ms > 0 && *run.tpot_ms > 0;
}

// Both tables gain the run under `key` when both predictions of it are usable.
void add_run(const MeasuredRun& run, const RunPrediction& roofline, const RunPrediction& calibrated,
             const std::string& key, ErrorTable& without, ErrorTable& with) {
  if (!usable(run, roofline) || !usable(run, calibrated)) return;
  without.add(key, {*roofline.ttft_ms, *run.ttft_ms}, {*roofline.tpot_ms, *run.tpot_ms});
  with.add(key, {*calibrated.ttft_ms, *run.ttft_ms}, {*calibrated.tpot_ms, *run.tpot_ms});
}

}  // namespace

std::vector<CalibrationEffect> calibration_effect(const std::vector<MeasuredRun>& runs,
                                                  const std::vector<RunPrediction>& roofline,
                                                  const std::vector<RunPrediction>& calibrated,
                                                  const std::vector<std::string>& presets) {
  ErrorTable without, with;
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const std::string preset = hardware_preset_for_system(runs[index].system);
    if (std::find(presets.begin(), presets.end(), preset) == presets.end()) continue;
    add_run(runs[index], roofline[index], calibrated[index], preset, without, with);
  }
  std::vector<CalibrationEffect> rows;
  const std::map<std::string, PartitionErrors> before = without.partitions(), after = with.partitions();
  for (const std::string& preset : presets) {
    if (before.count(preset) > 0) rows.push_back({preset, before.at(preset), after.at(preset)});
  }
  rows.push_back({"all calibrated GPUs", without.overall(), with.overall()});
  return rows;
}

std::string ceilings_mismatch(const EngineProfile& profile, const std::vector<std::string>& names) {
  if (profile.ceilings == names) return "";
  return "fitted on " + ceilings_description(profile.ceilings) + ", priced on " + ceilings_description(names);
}

}  // namespace moeplan::predict
