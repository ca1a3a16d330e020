#include "predict/closed_loop.hpp"

namespace moeplan::predict {

double decode_step_seconds(const RunCosts& costs, const EngineProfile& profile) {
  return decode_step_seconds(costs.decode, costs.decode_batch, profile);
}

double prefill_seconds(const RunCosts& costs, const EngineProfile& profile, double prompt_tokens) {
  return prompt_seconds(costs.prefill, prompt_tokens, profile);
}

LoopCosts loop_costs(const RunCosts& costs, const EngineProfile& profile, double prompt_tokens) {
  return {decode_step_seconds(costs, profile),
          prefill_seconds(costs, profile, prompt_tokens),
          costs.decode_batch,
          costs.tokens_per_step,
          costs.prefill_ranks,
          costs.kv_transfer,
          costs.disaggregated,
          costs.lockstep_ranks};
}

LoopPrediction predict_closed_loop(const RunCosts& costs, const EngineProfile& profile, double concurrency,
                                   double prompt_tokens, double output_tokens) {
  return closed_loop(loop_costs(costs, profile, prompt_tokens), profile, concurrency, prompt_tokens, output_tokens);
}

}  // namespace moeplan::predict
