#pragma once
// The expert placement export hands to an engine: phy2log from eplb-solve's placement JSON
// (docs/formats.md: placement JSON), one row per MoE layer, one logical expert id per physical slot.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "export/plan_file.hpp"

namespace moeplan::exporting {

struct ExpertPlacement {
  std::string file;
  std::vector<std::vector<std::int64_t>> physical_to_logical;  // [MoE layers][physical slots]
  std::int64_t gpus = 0;  // the GPUs it was solved for (eplb-solve's shape.gpus); 0 when the file does not say
};

// Reads "phy2log" (other keys are ignored); throws InputError naming the file and the row.
ExpertPlacement parse_placement(const nlohmann::json& document, const std::string& file);
ExpertPlacement read_placement_file(const std::string& file);

// The placement must fit the role: a row per MoE layer of the model, experts + redundant slots per
// row, ids below the expert count and every expert placed at least once.
void check_placement_fits(const ExpertPlacement& placement, const PlanModel& model, const RolePlan& role);

}  // namespace moeplan::exporting
