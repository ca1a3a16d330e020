#pragma once
// Serving metrics of one layout in one role: the decode batch the memory allows, the step times, and the
// closed and open loops over the load (plan/serving_loop.hpp): the most output tokens per GPU within the
// SLOs, the load curve, and the figures at the scenario's offered load spread over the layout's replicas.
#include <cstdint>
#include <string>
#include <vector>

#include "cost/memory.hpp"
#include "cost/step_price.hpp"
#include "cost/step_time.hpp"
#include "plan/load_imbalance.hpp"
#include "plan/load_skew.hpp"
#include "plan/serving_loop.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"

namespace moeplan {

enum class Role { aggregated, prefill, decode };
std::string role_name(Role role);

struct RoleOptions {
  Role role = Role::aggregated;
  DispatchMode dispatch = DispatchMode::all_to_all;
  bool two_batch_overlap = false;
  bool speculative = false;  // decode with the scenario's speculative draft
};

struct ServingContext {
  const Model& model;
  const Scenario& scenario;
  const StepCost& steps;  // the step model at its ceilings with the engine's profile: every step's seconds
  SkewModel skew;
  const ExpertLoadImbalance* measured_loads = nullptr;  // from an expert-load log; null: the skew model
};

// The step options a role runs with: its dispatch and overlap, and the EP imbalance at
// `tokens_per_rank` (measured placement or skew model, times the batch's sampling noise).
StepOptions role_step_options(const ServingContext& context, const Layout& layout, const RoleOptions& options,
                              double tokens_per_rank);

// One point of a layout's load curve: the closed loop at `batch` sequences per DP rank on every rank.
struct LoadPoint {
  double batch = 0;                  // sequences per attention-DP rank
  double ttft = 0;                   // s
  double tpot = 0;                   // s per output token
  double output_tokens_per_gpu = 0;  // in flight x output / request life / GPUs
  double tokens_per_user = 0;        // 1 / TPOT
};

// The scenario's offered load (a rate or a concurrency) spread evenly over the layout's replicas.
struct LoadFigures {
  bool offered = false;       // false: the scenario offers neither a rate nor a concurrency
  std::int64_t replicas = 1;  // instances of the layout the cluster holds
  double in_flight = 0;       // requests in flight on one instance
  double ttft = 0;            // s, one instance's mean
  double tpot = 0;            // s, one instance's mean
  bool sustained = true;      // the memory holds what is in flight and the queue is bounded
  bool carries = true;        // sustained, and both SLOs hold
};

struct ServingEstimate {
  RoleOptions options;
  std::int64_t batch = 0;         // decode sequences per attention DP rank at the most load within the SLOs
  std::int64_t memory_batch = 0;  // the ceiling: what the memory and the engine's cap allow
  std::string batch_limit;        // what bound `batch`: memory, max_batch, slo.tpot, slo.ttft
  double max_over_mean = 1;       // EP imbalance used in the MoE terms
  StepBreakdown decode;           // one decode step at `batch` and the mean context, at the ceilings
  double decode_seconds = 0;      // that step priced with the engine's profile (cost/step_price.hpp)
  double tokens_per_step = 1;     // tokens each sequence gains per decode step: 1 + accepted drafted tokens
  StepBreakdown prefill;          // one prefill step of `prefill_tokens` per DP rank, at the ceilings
  double prefill_seconds = 0;     // that step priced with the engine's profile
  std::int64_t prefill_tokens = 0;
  double prompt_seconds = 0;         // one request's prompt as one pass, priced: what the loops queue
  double ttft = 0;                   // s: the closed loop at `batch` (prefill role: a request alone, in chunks)
  double tpot = 0;                   // s per output token: the closed loop at `batch`
  double output_tokens_per_gpu = 0;  // at `batch`: the most within the SLOs
  double input_tokens_per_gpu = 0;
  double tokens_per_user = 0;            // 1 / tpot
  double requests_per_second = 0;        // one instance at `batch`
  std::vector<LoadPoint> curve;          // the load a layout carries within the SLOs: 1 sequence per rank, the batches
                                         // the search for `batch` priced within them, and `batch`
  LoadFigures load;                      // at the scenario's offered load
  std::vector<OtpDecision> otp_schemes;  // [doc-004]: X1/X2 per split projection at the decode batch
  std::string rejected;                  // empty when the layout serves within the SLOs
  std::string detail;
};

// The prefill a layout runs in these options: one step of max(chunk, prompt) tokens per DP rank, one request's
// prompt as its own pass, and a request alone in chunks. The aggregated and prefill roles share it.
struct PrefillFigures {
  PricedStep step;                  // max(chunk, prompt) tokens per DP rank
  std::int64_t tokens = 0;          // that step's tokens
  double prompt_seconds = 0;        // one request's prompt as one pass
  double ttft_alone = 0;            // s: a request alone, its prompt in chunks
  double input_tokens_per_gpu = 0;  // at the full step
};
PrefillFigures prefill_figures(const ServingContext& context, const Layout& layout, const RoleOptions& options);

// `prefill` (may be null: priced here) is prefill_figures of the same layout and options.
ServingEstimate estimate_serving(const ServingContext& context, const Layout& layout, const MemoryPlan& memory,
                                 const RoleOptions& options, const PrefillFigures* prefill = nullptr);

// The closed loop of a layout in a role at `batch` sequences per DP rank on every rank (`batch` x DP in flight),
// the steps priced as `estimate_serving` prices them.
LoopPrediction loop_at_batch(const ServingContext& context, const Layout& layout, const ServingEstimate& estimate,
                             double batch);

// The same loop on a decode step of `decode_seconds` already priced at `batch`.
LoopPrediction loop_on_step(const ServingContext& context, const Layout& layout, const ServingEstimate& estimate,
                            double batch, double decode_seconds);

// Instances of `layout` the scenario's cluster holds (at least 1).
std::int64_t layout_replicas(const Scenario& scenario, const Layout& layout);

// Tokens a sequence gains per decode step in these options: 1, or 1 + the scenario's accepted tokens.
double decode_tokens_per_step(const ServingContext& context, const RoleOptions& options);

// Mean tokens a decoding sequence holds: the prompt plus half the output (steady state, uniform ages).
double mean_decode_context(const Workload& workload);

}  // namespace moeplan
