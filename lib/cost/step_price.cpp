#include "cost/step_price.hpp"

#include <algorithm>

namespace moeplan {

namespace {

// The layers' kernels and collectives at their multipliers, a pipeline's bubble at the same rate as the
// stages it idles, the stage transfers as collectives and the draft's passes at the mean kernel multiplier.
double layer_seconds(const FamilyTimes& times, double compute_seconds, const FamilyMultipliers& m) {
  const double layers = compute_seconds + m.communication * times.communication + times.dispatch - times.overlap_saved;
  const double draft_multiplier = (m.attention + m.experts + m.other) / 3.0;
  return std::max(0.0, layers) * (1.0 + times.pipeline_bubble_share) + m.communication * times.stage_transfer +
         draft_multiplier * times.draft;
}

}  // namespace

FamilyTimes family_times(const StepBreakdown& step, const Layout& layout, DispatchMode dispatch) {
  FamilyTimes times;
  times.attention = step.attention;
  times.experts = step.moe_compute;
  times.other = step.other;
  times.communication = step.otp_comm + step.tp_comm;
  times.overlap_saved = step.overlap_saved;
  if (exchanges_by_collectives(layout, dispatch)) {
    times.communication += step.dispatch_combine;
  } else {
    times.dispatch = step.dispatch_combine;
  }
  const double stages = step.total - step.pipeline_bubble - step.pipeline_transfer - step.draft;
  times.pipeline_bubble_share = stages > 0 ? step.pipeline_bubble / stages : 0.0;
  times.stage_transfer = step.pipeline_transfer;
  times.draft = step.draft;
  return times;
}

Efficiency roofline_efficiency() { return Efficiency{}; }

double decode_step_seconds(const FamilyTimes& decode, double batch, const EngineProfile& profile) {
  const FamilyMultipliers& m = profile.multipliers;
  const double compute = m.attention * decode.attention + m.experts * decode.experts + m.other * decode.other;
  return profile.overheads.step + profile.overheads.sequence_step * batch + layer_seconds(decode, compute, m);
}

double prompt_seconds(const FamilyTimes& prefill, double prompt_tokens, const EngineProfile& profile) {
  const FamilyMultipliers& m = profile.multipliers;
  const double steps = prompt_tokens / static_cast<double>(profile.chunk_tokens);
  const double compute =
      m.prefill_attention_multiplier() * prefill.attention + m.prefill * (prefill.experts + prefill.other);
  return layer_seconds(prefill, compute, m) + profile.overheads.step * std::max(steps, 1.0 / 64.0);
}

PricedStep StepCost::decode(const Layout& layout, const DecodeInput& input, const StepOptions& options,
                            double sequences) const {
  PricedStep step{steps_.decode(layout, input, options), 0.0};
  step.seconds = decode_step_seconds(family_times(step.breakdown, layout, options.dispatch), sequences, profile_);
  return step;
}

PricedStep StepCost::prefill(const Layout& layout, const PrefillInput& input, const StepOptions& options) const {
  PricedStep step{steps_.prefill(layout, input, options), 0.0};
  step.seconds = prompt_seconds(family_times(step.breakdown, layout, options.dispatch), input.tokens, profile_);
  return step;
}

}  // namespace moeplan
