#pragma once
// The eplb-solve report: one HTML page with GPU load per layer before and after the placement,
// balancedness per layer against its bound, and the replicas of the hottest experts.
#include <string>

#include "eplb/evaluation.hpp"
#include "eplb/load_log.hpp"
#include "eplb/placement.hpp"

namespace moeplan::report {

struct EplbReportInput {
  std::string policy;         // the solver that placed: "hierarchical", "global", "deepseek"
  std::string baseline_name;  // what "before" is: "trivial" or "previous"
  const eplb::LoadLog& log;
  const eplb::Placement& placement;
  const eplb::Placement& baseline;
  const eplb::PlacementEvaluation& after;
  const eplb::PlacementEvaluation& before;
};

std::string eplb_report_html(const EplbReportInput& input);

}  // namespace moeplan::report
