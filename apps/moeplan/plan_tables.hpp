#pragma once
// The tables plan-deploy prints, and the term-by-term explanation of one layout.
#include <string>
#include <vector>

#include "cost/engine_profile.hpp"
#include "plan/search.hpp"
#include "predict/offered_load.hpp"

namespace moeplan::cli {

std::string aggregated_table(const std::vector<Candidate>& candidates, std::size_t top);
std::string disaggregated_table(const std::vector<DisaggregatedPlan>& plans, std::size_t top);
// The top aggregated plans at the scenario's offered load (estimates run parallel to candidates), with
// the band of the profile that priced them.
std::string offered_load_table(const std::vector<Candidate>& candidates,
                               const std::vector<predict::LoadEstimate>& estimates, const ErrorBand& band);
std::string offered_load_heading(const Scenario& scenario, const EngineProfile& profile);
std::string explain_layout(const Model& model, const Scenario& scenario, const StepCost& steps,
                           const ExpertLoadImbalance* measured_loads, const Layout& layout);

}  // namespace moeplan::cli
