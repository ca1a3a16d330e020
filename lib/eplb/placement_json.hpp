#pragma once
// The placement file (README: placement JSON) and SGLang's --init-expert-location file.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "eplb/evaluation.hpp"
#include "eplb/placement.hpp"

namespace moeplan::eplb {

// {"version", "shape", "policy", "phy2log" [L][R], "log2phy" [L][E][max replicas] (-1 padded),
//  "logcnt" [L][E], per-layer "balancedness", "max_gpu_load", "lower_bound", "max_over_bound",
//  and "baseline": {"kind", "balancedness", "max_over_bound"}} for the input or trivial placement.
nlohmann::json placement_document(const Placement& placement, const std::string& policy,
                                  const PlacementEvaluation& result, const std::string& baseline_kind,
                                  const PlacementEvaluation& baseline);

// The placement file as text: placement_document with "moves" [layers] added when `moves` is not
// empty, exactly as nlohmann's dump() writes it (compact, keys sorted), and a newline. The integer
// maps, most of the file, are written straight to text rather than built as a document.
std::string placement_json_text(const Placement& placement, const std::string& policy,
                                const PlacementEvaluation& result, const std::string& baseline_kind,
                                const PlacementEvaluation& baseline, std::span<const std::int64_t> moves);

// Reads phy2log from our placement file, or physical_to_logical_map from SGLang's file (whose
// first `dense_layers` rows are the dense layers, dropped here; -1 when unknown). The rows must
// match `shape` and `layers`; throws InputError naming the file and key otherwise.
Placement read_placement_json(const std::filesystem::path& file, const DeploymentShape& shape, std::int64_t layers,
                              std::int64_t dense_layers);

// [sglang-expert-location]: {"physical_to_logical_map": [model layers][slots]}, dense layers first with
// SGLang's trivial row (slot p holds expert p % E), then one row per MoE layer.
std::string sglang_expert_location_json(const Placement& placement, std::int64_t dense_layers);

}  // namespace moeplan::eplb
