#pragma once
// The tables plan-deploy prints, and the term-by-term explanation of one layout.
#include <string>
#include <vector>

#include "plan/search.hpp"

namespace moeplan::cli {

std::string aggregated_table(const std::vector<Candidate>& candidates, std::size_t top);
std::string disaggregated_table(const std::vector<DisaggregatedPlan>& plans, std::size_t top);
std::string explain_layout(const Model& model, const Scenario& scenario, const StepModel& steps,
                           const ExpertLoadImbalance* measured_loads, const Layout& layout);

}  // namespace moeplan::cli
