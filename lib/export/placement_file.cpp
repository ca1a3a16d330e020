#include "export/placement_file.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "io/input_error.hpp"
#include "io/json_fields.hpp"

namespace moeplan::exporting {

ExpertPlacement parse_placement(const nlohmann::json& document, const std::string& file) {
  const JsonFields root(document, file, "");
  const nlohmann::json& rows = root.non_empty_array("phy2log");
  ExpertPlacement placement{file, {}, 0};
  if (root.has("shape")) placement.gpus = root.object("shape").integer("gpus", 1, kLargestJsonCount);
  for (std::size_t layer = 0; layer < rows.size(); ++layer) {
    const std::string key = fmt::format("phy2log[{}]", layer);
    if (!rows[layer].is_array() || rows[layer].empty()) throw InputError(file, key, "a non-empty list of expert ids");
    std::vector<std::int64_t> row;
    for (const nlohmann::json& expert : rows[layer]) {
      if (!expert.is_number_integer() || expert.get<std::int64_t>() < 0) {
        throw InputError(file, key, fmt::format("non-negative integer expert ids, got {}", echoed(expert.dump())));
      }
      row.push_back(expert.get<std::int64_t>());
    }
    placement.physical_to_logical.push_back(std::move(row));
  }
  return placement;
}

ExpertPlacement read_placement_file(const std::string& file) { return parse_placement(read_json_file(file), file); }

void check_placement_fits(const ExpertPlacement& placement, const PlanModel& model, const RolePlan& role) {
  // The slots split over the EP group: a placement solved for another GPU count puts experts on GPUs the
  // role does not have, or leaves some of its GPUs without any.
  if (placement.gpus != 0 && placement.gpus != role.layout.ep) {
    throw InputError(placement.file, "shape.gpus",
                     fmt::format("{} GPUs, the expert-parallel size of the {} role ({}), got a placement solved for {}",
                                 role.layout.ep, role_name(role.role), role.key, placement.gpus));
  }
  const auto& rows = placement.physical_to_logical;
  if (static_cast<std::int64_t>(rows.size()) != model.moe_layers()) {
    throw InputError(placement.file, "phy2log",
                     fmt::format("{} rows, one per MoE layer of {} ({} layers, {} dense), got {}", model.moe_layers(),
                                 model.name, model.num_layers, model.dense_layers, rows.size()));
  }
  const std::int64_t slots = model.num_experts + role.layout.redundant;
  for (std::size_t layer = 0; layer < rows.size(); ++layer) {
    const std::string key = fmt::format("phy2log[{}]", layer);
    if (static_cast<std::int64_t>(rows[layer].size()) != slots) {
      throw InputError(placement.file, key,
                       fmt::format("{} slots ({} experts + {} redundant of the {} role), got {}", slots,
                                   model.num_experts, role.layout.redundant, role_name(role.role), rows[layer].size()));
    }
    std::vector<bool> placed(static_cast<std::size_t>(model.num_experts), false);
    for (const std::int64_t expert : rows[layer]) {
      if (expert >= model.num_experts) {
        throw InputError(placement.file, key, fmt::format("expert ids below {}, got {}", model.num_experts, expert));
      }
      placed[static_cast<std::size_t>(expert)] = true;
    }
    const auto missing = std::find(placed.begin(), placed.end(), false);
    if (missing != placed.end()) {
      throw InputError(placement.file, key,
                       fmt::format("every expert in at least one slot; expert {} has none", missing - placed.begin()));
    }
  }
}

}  // namespace moeplan::exporting
