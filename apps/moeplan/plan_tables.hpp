#pragma once
// The tables plan-deploy prints, and the term-by-term explanation of one layout.
#include <string>
#include <vector>

#include "cost/engine_profile.hpp"
#include "plan/search.hpp"

namespace moeplan::cli {

// The first table: every feasible aggregated layout ranked by the most output tokens/s per GPU within the SLOs,
// those that carry the scenario's offered load first, with the figures at that load.
std::string aggregated_table(const std::vector<Candidate>& candidates, std::size_t top, const ErrorBand& band);
std::string disaggregated_table(const std::vector<DisaggregatedPlan>& plans, std::size_t top);
std::string offered_load_heading(const Scenario& scenario, const EngineProfile& profile);
std::string explain_layout(const Model& model, const Scenario& scenario, const StepCost& steps,
                           const ExpertLoadImbalance* measured_loads, const Layout& layout);

}  // namespace moeplan::cli
