#pragma once
// A placement: which logical expert every physical slot of every MoE layer holds, and the maps
// derived from it (the placement JSON in README; [deepseek-eplb]: phy2log, log2phy, logcnt).
#include <cstdint>
#include <string>
#include <vector>

#include "eplb/deployment_shape.hpp"

namespace moeplan::eplb {

using SlotRow = std::vector<std::int32_t>;  // [slots]: the logical expert in each physical slot

struct Placement {
  DeploymentShape shape;
  std::vector<SlotRow> physical_to_logical;  // [layers][slots]

  std::int64_t layers() const { return static_cast<std::int64_t>(physical_to_logical.size()); }
};

// logcnt of one layer: row [slots] -> replicas per expert [experts].
std::vector<std::int64_t> replica_counts(const SlotRow& row, std::int64_t experts);

// log2phy of one layer: row [slots] -> [experts][width], each expert's slots ascending, -1 padded.
std::vector<std::vector<std::int32_t>> logical_to_physical(const SlotRow& row, std::int64_t experts,
                                                           std::int64_t width);

// The largest replica count over all layers: the width of log2phy.
std::int64_t max_replicas(const Placement& placement);

// SGLang's "trivial" placement [sglang-expert-location]: slot p holds expert p % experts, in every layer.
SlotRow trivial_row(const DeploymentShape& shape);

// `layers` trivial rows: the placement [layers][slots] an engine starts from without a placement file.
Placement trivial_placement(const DeploymentShape& shape, std::int64_t layers);

// Sorts each GPU's slots by expert id: the order inside a GPU does not change any load, so one
// canonical order makes results reproducible and comparable. row [slots], in place.
void order_slots_within_gpus(SlotRow& row, const DeploymentShape& shape);

// Checks each row has shape.slots entries in [0, experts) and every expert at least once; throws
// InputError naming `file` and the row.
void validate_placement(const Placement& placement, const std::string& file);

}  // namespace moeplan::eplb
