#pragma once
// The one step-cost model. A step's seconds are the step model's families (cost/step_time.hpp) at the
// hardware's ceilings (the datasheet's, or those a calibration measured), with what the serving engine
// adds (cost/engine_profile.hpp): a multiplier per family and overheads per step and per sequence. The
// search, the serving simulation, the offered-load pricing, predict-runs and fit-engine all turn steps
// into seconds here; docs/prediction.md writes the formulas once.
#include "cost/engine_profile.hpp"
#include "cost/step_time.hpp"
#include "spec/layout.hpp"

namespace moeplan {

// Seconds at the ceilings, per family.
struct FamilyTimes {
  double attention = 0;
  double experts = 0;
  double other = 0;
  double communication = 0;  // collectives: TP and O/QKV-projection, and expert sums met by all-reduce or gather
  double overlap_saved = 0;
  double dispatch = 0;  // EP all-to-all dispatch and combine (NCCL all-to-all, DeepEP), at its own model's price
  // Beside the layers: a pipeline's fill and drain as a share of its stages' time (0 without stages), the
  // activations sent between stages (a collective), and a speculative draft's passes (kernels of every family).
  double pipeline_bubble_share = 0;
  double stage_transfer = 0;
  double draft = 0;

  double compute() const { return attention + experts + other; }
};

// A step's seconds by family. The experts' token exchange counts as communication when it runs on
// collectives, and as dispatch when it is an all-to-all (exchanges_by_collectives).
FamilyTimes family_times(const StepBreakdown& step, const Layout& layout, DispatchMode dispatch);

// Efficiency at 100 % of every ceiling, keeping the kernel and routing floors: the step model's default.
Efficiency roofline_efficiency();

// One decode step of `batch` sequences per attention-DP rank: the step and per-sequence overheads plus each
// family at its multiplier, an all-to-all dispatch at its own price, less what overlap hides, s.
double decode_step_seconds(const FamilyTimes& decode, double batch, const EngineProfile& profile);

// A prefill pass of `prompt_tokens` new tokens per DP rank: its compute at the prefill multiplier, its
// collectives, its dispatch, and the step overhead of the chunks it fills (a prompt shorter than a chunk
// shares its step), s.
double prompt_seconds(const FamilyTimes& prefill, double prompt_tokens, const EngineProfile& profile);

// The priced step of a layout: the step model's breakdown and its seconds under a profile.
struct PricedStep {
  StepBreakdown breakdown;
  double seconds = 0;
};

// The step model at its ceilings and the profile of the engine that runs it: the pair every caller prices
// steps with.
class StepCost {
 public:
  StepCost(const StepModel& steps, const EngineProfile& profile) : steps_(steps), profile_(profile) {}

  // One decode step at `input` (batch per DP rank, context); `sequences` is the batch the per-sequence
  // overhead counts (the real batch when `input.batch` is a padded graph size).
  PricedStep decode(const Layout& layout, const DecodeInput& input, const StepOptions& options, double sequences) const;
  PricedStep prefill(const Layout& layout, const PrefillInput& input, const StepOptions& options) const;

  const StepModel& steps() const { return steps_; }
  const EngineProfile& profile() const { return profile_; }

 private:
  const StepModel& steps_;
  const EngineProfile& profile_;
};

}  // namespace moeplan
