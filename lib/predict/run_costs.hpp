#pragma once
// The first-principles part of a measured run's prediction: one decode step and one request's prefill
// on its layouts, priced by the step model at 100 % of the datasheet ceilings and split by operation
// family, so an engine profile's multipliers and overheads apply to them in closed form.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cost/step_price.hpp"
#include "cost/step_time.hpp"
#include "predict/measured_runs.hpp"
#include "predict/run_deployment.hpp"

namespace moeplan::predict {

struct RunCosts {
  double decode_batch = 0;   // sequences per attention-DP rank of the decode worker
  FamilyTimes decode;        // one decode step at that batch and the mean context
  FamilyTimes prefill;       // one request's prompt as one prefill pass on the prefill worker
  double prefill_ranks = 1;  // attention-DP ranks prefilling side by side (all prefill workers)
  double kv_transfer = 0;    // s: one prompt's KV cache from the prefill to the decode worker
  bool disaggregated = false;
  double tokens_per_step = 1;  // tokens a sequence gains per decode step: 1 + accepted drafted tokens
  double lockstep_ranks = 1;   // aggregated MoE worker: its attention-DP ranks, which step together
};

// The ceilings one GPU preset's runs are priced on in place of the roofline: a calibration's measured
// collective curves and ceilings (calib::measured_ceilings), named for the profile that sits on them.
struct PresetCeilings {
  CollectiveModel collectives;
  Efficiency efficiency;
  std::string name;  // "H200: calibration_4xh200.json (4x NVIDIA H200)"
};

// Step models by model, formats and GPU, built once and reused over a file's runs: at the roofline, or
// on the measured ceilings set for the run's GPU preset.
class StepModelCache {
 public:
  // Runs on `preset` (a Deployment::hardware_preset) are priced on `ceilings` from now on.
  void set_ceilings(const std::string& preset, PresetCeilings ceilings);
  // The names of the ceilings set, by preset; empty when every run sits on the roofline.
  std::vector<std::string> ceiling_names() const;
  const StepModel& get(const Deployment& deployment);

 private:
  std::map<std::string, PresetCeilings> ceilings_;
  std::map<std::string, std::unique_ptr<StepModel>> models_;
};

RunCosts run_costs(const MeasuredRun& run, const Deployment& deployment, const StepModel& steps);

// The decode worker's batch per attention-DP rank: the row's own when it gives one, else the
// concurrency spread over the workers' DP ranks.
double decode_batch_per_rank(const MeasuredRun& run);

}  // namespace moeplan::predict
