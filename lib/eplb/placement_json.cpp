#include "eplb/placement_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>

#include "io/input_error.hpp"

namespace moeplan::eplb {

namespace {

nlohmann::json per_layer(const PlacementEvaluation& evaluation, double LayerEvaluation::*field) {
  auto values = nlohmann::json::array();
  for (const auto& layer : evaluation.layers) values.push_back(layer.*field);
  return values;
}

nlohmann::json shape_document(const DeploymentShape& shape, std::int64_t layers) {
  return {{"nodes", shape.nodes},   {"gpus", shape.gpus},   {"gpus_per_node", shape.gpus_per_node()},
          {"slots", shape.slots},   {"slots_per_gpu", shape.slots_per_gpu()},
          {"experts", shape.experts}, {"groups", shape.groups}, {"layers", layers}};
}

// logcnt [L][E] (counts_only) or log2phy [L][E][max replicas], -1 padded, for every layer.
nlohmann::json replica_maps(const Placement& placement, bool counts_only) {
  auto maps = nlohmann::json::array();
  const auto width = max_replicas(placement);
  for (const auto& row : placement.physical_to_logical) {
    if (counts_only) {
      maps.push_back(replica_counts(row, placement.shape.experts));
    } else {
      maps.push_back(logical_to_physical(row, placement.shape.experts, width));
    }
  }
  return maps;
}

SlotRow row_from_json(const nlohmann::json& value, const std::string& file, const std::string& key) {
  if (!value.is_array()) throw InputError(file, key, "a list of expert ids");
  SlotRow row;
  for (const auto& expert : value) {
    if (!expert.is_number_integer()) throw InputError(file, key, fmt::format("integer expert ids, got {}", expert.dump()));
    row.push_back(static_cast<std::int32_t>(std::clamp<std::int64_t>(expert.get<std::int64_t>(), -1, std::numeric_limits<std::int32_t>::max())));
  }
  return row;
}

}  // namespace

nlohmann::json placement_document(const Placement& placement, const std::string& policy, const PlacementEvaluation& result,
                                  const std::string& baseline_kind, const PlacementEvaluation& baseline) {
  return {{"version", 1},
          {"shape", shape_document(placement.shape, placement.layers())},
          {"policy", policy},
          {"phy2log", placement.physical_to_logical},
          {"log2phy", replica_maps(placement, false)},
          {"logcnt", replica_maps(placement, true)},
          {"balancedness", per_layer(result, &LayerEvaluation::balancedness)},
          {"max_gpu_load", per_layer(result, &LayerEvaluation::max_load)},
          {"lower_bound", per_layer(result, &LayerEvaluation::lower_bound)},
          {"max_over_bound", per_layer(result, &LayerEvaluation::max_over_bound)},
          {"balancedness_mean", result.mean_balancedness()},
          {"baseline",
           {{"kind", baseline_kind},
            {"balancedness", per_layer(baseline, &LayerEvaluation::balancedness)},
            {"max_over_bound", per_layer(baseline, &LayerEvaluation::max_over_bound)},
            {"balancedness_mean", baseline.mean_balancedness()}}}};
}

Placement read_placement_json(const std::filesystem::path& file, const DeploymentShape& shape, std::int64_t layers,
                              std::int64_t dense_layers) {
  const auto name = file.string();
  std::ifstream stream(file, std::ios::binary);
  if (!stream) throw InputError(name, "", "a readable placement file");
  std::stringstream buffer;
  buffer << stream.rdbuf();
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(buffer.str());
  } catch (const nlohmann::json::exception& error) {  // parse errors and out-of-range numbers alike
    throw InputError(name, "", fmt::format("valid JSON ({})", error.what()));
  }
  const bool sglang = root.is_object() && root.contains("physical_to_logical_map");
  const char* key = sglang ? "physical_to_logical_map" : "phy2log";
  if (!root.is_object() || !root.contains(key)) throw InputError(name, "phy2log", "a [layers][slots] list (the key is missing)");
  const auto& rows = root.at(key);
  const auto skipped = sglang ? dense_layers : 0;
  if (skipped < 0) throw InputError(name, key, "the model's dense-layer count to drop the dense rows (give --model or --dense-layers)");
  if (!rows.is_array() || static_cast<std::int64_t>(rows.size()) != skipped + layers) {
    throw InputError(name, key, fmt::format("{} layer rows (the load log's MoE layers{}), got {}", skipped + layers,
                                            sglang ? " after the dense ones" : "", rows.is_array() ? rows.size() : 0));
  }
  Placement placement{shape, {}};
  for (auto layer = skipped; layer < skipped + layers; ++layer) {
    placement.physical_to_logical.push_back(row_from_json(rows[static_cast<std::size_t>(layer)], name, fmt::format("{}[{}]", key, layer)));
  }
  validate_placement(placement, name);
  return placement;
}

std::string sglang_expert_location_json(const Placement& placement, std::int64_t dense_layers) {
  auto rows = nlohmann::json::array();
  for (std::int64_t layer = 0; layer < dense_layers; ++layer) rows.push_back(trivial_row(placement.shape));
  for (const auto& row : placement.physical_to_logical) rows.push_back(row);
  return nlohmann::json{{"physical_to_logical_map", rows}}.dump() + "\n";
}

}  // namespace moeplan::eplb
