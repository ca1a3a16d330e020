#pragma once
// The engine-neutral deployment JSON (schema_version 1) export writes beside the engine files: the
// chosen plan's roles, their node and device assignment, layouts, batch limits, memory fractions,
// placement references, predicted metrics and the calibration they came from, in a fixed key order.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "export/node_assignment.hpp"

namespace moeplan::exporting {

// `placements`: the placement file each role's experts follow (roles without one are null).
nlohmann::ordered_json deployment_json(const PlanFile& plan, std::size_t plan_index,
                                       const std::vector<NodeLaunch>& nodes,
                                       const std::map<RoleKind, std::string>& placements);

}  // namespace moeplan::exporting
