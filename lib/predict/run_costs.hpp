#pragma once
// The first-principles part of a measured run's prediction: one decode step and one request's prefill
// on its layouts, priced by the step model at 100 % of the datasheet ceilings and split by operation
// family, so an engine profile's multipliers and overheads apply to them in closed form.
#include <map>
#include <memory>
#include <string>

#include "cost/step_time.hpp"
#include "predict/measured_runs.hpp"
#include "predict/run_deployment.hpp"

namespace moeplan::predict {

// Seconds at the roofline, per family.
struct FamilyTimes {
  double attention = 0;
  double experts = 0;
  double other = 0;
  double communication = 0;  // collectives: TP and O/QKV-projection, and expert sums met by all-reduce or gather
  double overlap_saved = 0;
  double dispatch = 0;  // EP all-to-all dispatch and combine (NCCL all-to-all, DeepEP), at its own model's price

  double compute() const { return attention + experts + other; }
};

struct RunCosts {
  double decode_batch = 0;   // sequences per attention-DP rank of the decode worker
  FamilyTimes decode;        // one decode step at that batch and the mean context
  FamilyTimes prefill;       // one request's prompt as one prefill pass on the prefill worker
  double prefill_ranks = 1;  // attention-DP ranks prefilling side by side (all prefill workers)
  double kv_transfer = 0;    // s: one prompt's KV cache from the prefill to the decode worker
  bool disaggregated = false;
  double tokens_per_step = 1;  // tokens a sequence gains per decode step: 1 + accepted drafted tokens
};

// A step's seconds by family. The experts' token exchange counts as communication when it runs on
// collectives, and as dispatch when it is an all-to-all (exchanges_by_collectives).
FamilyTimes family_times(const StepBreakdown& step, const Layout& layout, DispatchMode dispatch);

// Efficiency at 100 % of every ceiling, keeping the kernel and routing floors.
Efficiency roofline_efficiency();

// Step models by model, formats and GPU, built once and reused over a file's runs.
class StepModelCache {
 public:
  const StepModel& get(const Deployment& deployment);

 private:
  std::map<std::string, std::unique_ptr<StepModel>> models_;
};

RunCosts run_costs(const MeasuredRun& run, const Deployment& deployment, const StepModel& steps);

// The decode worker's batch per attention-DP rank: the row's own when it gives one, else the
// concurrency spread over the workers' DP ranks.
double decode_batch_per_rank(const MeasuredRun& run);

}  // namespace moeplan::predict
