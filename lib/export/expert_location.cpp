#include "export/expert_location.hpp"

namespace moeplan::exporting {

nlohmann::json sglang_expert_location(const ExpertPlacement& placement, const PlanModel& model) {
  const std::size_t slots = placement.physical_to_logical.front().size();
  nlohmann::json rows = nlohmann::json::array();
  for (std::int64_t layer = 0; layer < model.dense_layers; ++layer) {
    // [sglang-expert-location]: "trivial" puts logical expert p % num_logical_experts in physical slot p.
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t slot = 0; slot < slots; ++slot) row.push_back(static_cast<std::int64_t>(slot) % model.num_experts);
    rows.push_back(std::move(row));
  }
  for (const auto& moe_row : placement.physical_to_logical) rows.push_back(moe_row);
  return {{"physical_to_logical_map", std::move(rows)}};
}

std::string expert_location_file_name(RoleKind role) { return "expert-location-" + role_name(role) + ".json"; }

}  // namespace moeplan::exporting
