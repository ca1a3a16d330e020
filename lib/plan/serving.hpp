#pragma once
// Serving metrics of one layout in one role: the decode batch memory and SLOs allow, step times,
// TTFT, TPOT and throughput per GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "cost/memory.hpp"
#include "cost/step_price.hpp"
#include "cost/step_time.hpp"
#include "plan/load_imbalance.hpp"
#include "plan/load_skew.hpp"
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

struct ServingEstimate {
  RoleOptions options;
  std::int64_t batch = 0;      // decode sequences per attention DP rank
  std::string batch_limit;     // what bound it: memory, max_batch, concurrency, tpot_slo
  double max_over_mean = 1;    // EP imbalance used in the MoE terms
  StepBreakdown decode;        // one decode step at `batch` and the mean context, at the ceilings
  double decode_seconds = 0;   // that step priced with the engine's profile (cost/step_price.hpp)
  double tokens_per_step = 1;  // tokens each sequence gains per decode step: 1 + accepted drafted tokens
  StepBreakdown prefill;       // one prefill step of `prefill_tokens` per DP rank, at the ceilings
  double prefill_seconds = 0;  // that step priced with the engine's profile
  std::int64_t prefill_tokens = 0;
  double ttft = 0;  // s, a request alone: its prefill chunks (and one decode step when aggregated)
  double tpot = 0;  // s per output token, prefill interleaving included when aggregated
  double output_tokens_per_gpu = 0;
  double input_tokens_per_gpu = 0;
  double tokens_per_user = 0;  // 1 / tpot
  // At the scenario's request rate (Little's law: running = rate x time in decode), not at capacity.
  double load_batch = 0;                 // sequences per DP rank the offered rate keeps running
  double load_tpot = 0;                  // s per output token at that batch
  bool sustains_load = true;             // the offered rate fits under the batch ceiling
  std::vector<OtpDecision> otp_schemes;  // [doc-004]: X1/X2 per split projection at the decode batch
  std::string rejected;                  // empty when the layout serves within the SLOs
  std::string detail;
};

ServingEstimate estimate_serving(const ServingContext& context, const Layout& layout, const MemoryPlan& memory,
                                 const RoleOptions& options);

// Tokens a sequence gains per decode step in these options: 1, or 1 + the scenario's accepted tokens.
double decode_tokens_per_step(const ServingContext& context, const RoleOptions& options);

// Mean tokens a decoding sequence holds: the prompt plus half the output (steady state, uniform ages).
double mean_decode_context(const Workload& workload);

}  // namespace moeplan
