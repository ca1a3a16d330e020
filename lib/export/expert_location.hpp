#pragma once
// SGLang's --init-expert-location file [sglang-expert-location]: {"physical_to_logical_map": [...]}, one
// row per model layer, dense layers included, each row one logical expert per physical slot.
#include <nlohmann/json.hpp>
#include <string>

#include "export/placement_file.hpp"

namespace moeplan::exporting {

// The placement's rows for the MoE layers; dense layers get SGLang's trivial row (slot p holds
// expert p % experts). The placement must already fit the role (check_placement_fits).
nlohmann::json sglang_expert_location(const ExpertPlacement& placement, const PlanModel& model);

// "expert-location-decode.json": SGLang reads a value ending in .json as a file [sglang-expert-location].
std::string expert_location_file_name(RoleKind role);

}  // namespace moeplan::exporting
