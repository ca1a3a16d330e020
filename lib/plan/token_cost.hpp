#pragma once
// Dollars per million tokens: the GPU-hours a deployment books, at a price per GPU-hour, over the tokens it
// serves in that hour. Each figure charges the whole GPU-hour to one kind of token, as [doc-003] prices its
// deployment by output tokens alone; the two are not a split of one bill.
#include <cstdint>

#include "plan/serving.hpp"
#include "spec/scenario.hpp"

namespace moeplan {

struct TokenCost {
  double gpu_hour_usd = 0;        // the price used, US dollars per GPU-hour; 0: unpriced
  double per_million_input = 0;   // US dollars per million prompt tokens served
  double per_million_output = 0;  // US dollars per million generated tokens served

  // A price was given and the deployment serves tokens at it.
  bool priced() const { return gpu_hour_usd > 0 && per_million_output > 0; }
};

// US dollars per million tokens for `gpus` GPUs at `gpu_hour_usd` each serving `tokens_per_second` in all:
// gpus x price / 3600 s / tokens_per_second x 1e6. 0 when nothing is served or no price is given.
double dollars_per_million_tokens(double gpu_hour_usd, double gpus, double tokens_per_second);

// `gpus` GPUs serving `request_rate` requests/s of the workload's mean lengths.
TokenCost cost_at_rate(double gpu_hour_usd, double gpus, double request_rate, const Workload& workload);

// The whole cluster of `gpus` serving the workload's offered load: its request rate, or for a concurrency the
// rate Little's law gives for `in_flight` requests in all, each taking ttft + tpot x (output tokens - 1)
// seconds. Unpriced (0) when the load is not sustained.
TokenCost cost_at_offered_load(double gpu_hour_usd, double gpus, const Workload& workload, bool sustained,
                               double in_flight, double ttft_seconds, double tpot_seconds);

// The same for a plan at the scenario's offered load, its load spread over the layout's replicas.
TokenCost cost_at_offered_load(const LoadFigures& load, const Scenario& scenario);

// One GPU generating `output_tokens_per_gpu` tokens/s of the workload's requests (and reading their prompts:
// input_tokens / output_tokens prompt tokens per generated token).
TokenCost cost_per_gpu(double gpu_hour_usd, double output_tokens_per_gpu, const Workload& workload);

}  // namespace moeplan
