#pragma once
// The plan-deploy report: one HTML page with the Pareto front, latency against the SLOs, memory per
// rank and the step-time split of the top layouts, and the rejected layouts grouped by reason.
#include <cstddef>
#include <string>

#include "plan/search.hpp"
#include "spec/scenario.hpp"

namespace moeplan::report {

struct PlanReportInput {
  std::string model_name;
  const Scenario& scenario;
  const SearchResult& result;
  std::size_t top = 10;  // layouts in the memory and step charts and the table
};

std::string plan_report_html(const PlanReportInput& input);

}  // namespace moeplan::report
