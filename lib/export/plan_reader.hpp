#pragma once
// Reads and checks a plan JSON from plan-deploy (schema_version 1); unknown keys are ignored so a
// newer plan-deploy may add fields, but every field export uses is checked.
#include <nlohmann/json.hpp>
#include <string>

#include "export/plan_file.hpp"

namespace moeplan::exporting {

// Throws InputError naming `file`, the key path and what was expected.
PlanFile parse_plan(const nlohmann::json& document, const std::string& file);
PlanFile read_plan_file(const std::string& file);

}  // namespace moeplan::exporting
