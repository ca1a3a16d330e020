#include "calib/moe_work.hpp"

#include <algorithm>

#include "spec/dtype.hpp"

namespace moeplan::calib {
namespace {

double weight_bytes(const Measurement& layer) { return element_bytes(parse_dtype(layer.dtype)); }

}  // namespace

ExpertPath measured_path(const Measurement& layer) {
  return layer.label == "streaming" ? ExpertPath::streaming : ExpertPath::library;
}

RoutingExpectation expected_routing(double tokens, double routed_slots, double top_k, double shared_slots,
                                    int riding_rows) {
  const SlotExpectation routed = expected_slot(tokens, top_k / routed_slots, riding_rows);
  const SlotExpectation shared = expected_slot(tokens, 1.0, riding_rows);
  RoutingExpectation expectation;
  expectation.rows = tokens * (top_k + shared_slots);
  expectation.active_experts = routed_slots * routed.reached + shared_slots * shared.reached;
  expectation.blocks = routed_slots * routed.blocks + shared_slots * shared.blocks;
  return expectation;
}

ExpertStageWork grouped_work(const Measurement& layer, ExpertPath path) {
  const auto tokens = static_cast<double>(layer.dimension("tokens"));
  const auto slots = static_cast<double>(layer.dimension("local_experts"));
  const auto top_k = static_cast<double>(layer.dimension("top_k"));
  const auto shared_slots = static_cast<double>(layer.dimension("columns") - layer.dimension("top_k"));
  // The rows that rode with a full block in the kernel measured (moe/riding_rows.hpp); none in files before.
  const auto riding_rows = static_cast<int>(layer.dimension("riding_rows"));
  const RoutingExpectation routing = expected_routing(tokens, slots, top_k, shared_slots, riding_rows);
  return expert_stage_work(path, routing.rows, routing.active_experts, routing.blocks,
                           static_cast<double>(layer.dimension("hidden")),
                           static_cast<double>(layer.dimension("intermediate")), weight_bytes(layer));
}

ExpertStageWork shared_work(const Measurement& layer) {
  const auto tokens = static_cast<double>(layer.dimension("tokens"));
  const std::int64_t hidden = layer.dimension("hidden"), intermediate = layer.dimension("shared_intermediate");
  return {ComputeModel::gemm_work(tokens, 2 * intermediate, hidden, DType::bf16, {}),
          ComputeModel::gemm_work(tokens, hidden, intermediate, DType::bf16, {})};
}

}  // namespace moeplan::calib
