#pragma once
// Evaluates every candidate layout of a scenario in every role it may play, keeps the feasible
// ones with their serving estimate and the rejected ones with their reason, and ranks what is kept.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cost/memory.hpp"
#include "cost/step_time.hpp"
#include "io/reporter.hpp"
#include "plan/serving.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"

namespace moeplan {

struct Candidate {
  Layout layout;
  MemoryPlan memory;
  ServingEstimate serving;
  bool pareto = false;  // on the front of throughput per GPU against throughput per user
};

struct Rejection {
  Layout layout;
  std::string role;
  std::string reason;  // a short class: "layout.ep", "memory", "slo.tpot"
  std::string detail;  // the full sentence
};

// Prefill and decode pools sized so the prefill rate feeds the decode rate.
// The prefill pool is sized for the busiest share of its ranks' time at which the TTFT SLO still holds
// (plan/disaggregation.hpp).
struct DisaggregatedPlan {
  Candidate prefill;
  Candidate decode;
  double prefill_gpus_per_decode_gpu = 0;
  double output_tokens_per_gpu = 0;  // over both pools
  double prefill_share = 0;          // rho: the share of a prefill rank's time on prompts at that size
  double ttft = 0;                   // s: the loop's TTFT at that share
  std::int64_t prefill_nodes = 0;
  std::int64_t decode_nodes = 0;
  double requests_per_second = 0;  // the cluster's split at the decode pool's batch within the SLOs
  bool carries = true;             // the scenario's offered rate or concurrency fits; true when none is offered
};

struct SearchResult {
  std::int64_t evaluated = 0;  // (layout, role) pairs looked at
  std::int64_t context_length = 0;
  bool calibrated = false;
  std::string estimates;    // what the step times rest on: a calibration, the scenario's efficiencies or the datasheet
  std::string profile;      // the engine profile every step is priced with
  std::string load_source;  // what set the EP imbalance: a load log or the skew model
  std::vector<Candidate> aggregated;             // best first
  std::vector<Candidate> prefill;                // best input throughput first
  std::vector<Candidate> decode;                 // best output throughput first
  std::vector<DisaggregatedPlan> disaggregated;  // best first
  std::vector<Rejection> rejections;
  std::map<std::string, std::int64_t> rejected_by_reason;
};

// The dispatch modes and overlap settings a layout may run in a role (all-to-all backends need EP = ranks,
// [sglang-server-args]), less the combinations the scenario's engine release cannot run
// (spec/engine_rules.hpp).
std::vector<RoleOptions> role_options(const Layout& layout, Role role, const SearchSpace& search,
                                      const EngineChoice& engine);

// Feasibility and the best serving estimate of one layout in one role; a rejection otherwise.
struct Evaluation {
  std::optional<Candidate> candidate;
  std::optional<Rejection> rejection;
};
Evaluation evaluate_layout(const ServingContext& context, const Layout& layout, Role role);

// `measured_loads` (may be null) replaces the skew model with placements solved from a load log.
SearchResult search_layouts(const Model& model, const Scenario& scenario, const StepCost& steps, Reporter& reporter,
                            const ExpertLoadImbalance* measured_loads = nullptr);

}  // namespace moeplan
