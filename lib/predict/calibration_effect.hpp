#pragma once
// How a calibration moves the error on the runs of the GPUs it measured: the same runs predicted at
// the datasheet roofline and on the measured ceilings, each by profiles fitted on the ceilings it is
// priced on, summarised per GPU preset.
#include <string>
#include <vector>

#include "predict/measured_runs.hpp"
#include "predict/prediction_errors.hpp"
#include "predict/predictor.hpp"

namespace moeplan::predict {

struct CalibrationEffect {
  std::string preset;       // a GPU preset, or "all calibrated GPUs"
  PartitionErrors without;  // at the roofline
  PartitionErrors with;     // on the measured ceilings
};

// One row per preset in `presets` (Deployment::hardware_preset names) and one over all of them, over the
// runs both prediction sets predict (neither marked implausible) and that carry both measurements.
// `runs`, `roofline` and `calibrated` run in parallel.
std::vector<CalibrationEffect> calibration_effect(const std::vector<MeasuredRun>& runs,
                                                  const std::vector<RunPrediction>& roofline,
                                                  const std::vector<RunPrediction>& calibrated,
                                                  const std::vector<std::string>& presets);

// Empty when `profile` sits on the ceilings `names` (PresetCeilings::name, in order), else what differs,
// in words.
std::string ceilings_mismatch(const EngineProfile& profile, const std::vector<std::string>& names);

}  // namespace moeplan::predict
