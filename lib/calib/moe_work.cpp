#include "calib/moe_work.hpp"

#include <algorithm>

namespace moeplan::calib {
namespace {

constexpr double kActivationBytes = 2.0;  // bf16 activations between the stages

double weight_bytes(const Measurement& layer) { return layer.dtype == "fp8_e4m3" ? 1.0 : 2.0; }

}  // namespace

ExpertPath measured_path(const Measurement& layer) {
  return layer.label == "streaming" ? ExpertPath::streaming : ExpertPath::library;
}

RoutingExpectation expected_routing(double tokens, double routed_slots, double top_k, double shared_slots) {
  const double picks = std::min(top_k, routed_slots);
  const SlotExpectation routed = expected_slot(tokens, picks / routed_slots);
  const SlotExpectation shared = expected_slot(tokens, 1.0);
  RoutingExpectation expectation;
  expectation.rows = tokens * (picks + shared_slots);
  expectation.active_experts = routed_slots * routed.reached + shared_slots * shared.reached;
  expectation.blocks = routed_slots * routed.blocks + shared_slots * shared.blocks;
  return expectation;
}

GroupedWork grouped_work(const Measurement& layer, ExpertPath path) {
  const auto tokens = static_cast<double>(layer.dimension("tokens"));
  const auto slots = static_cast<double>(layer.dimension("local_experts"));
  const auto top_k = static_cast<double>(layer.dimension("top_k"));
  const auto shared_slots = static_cast<double>(layer.dimension("columns") - layer.dimension("top_k"));
  const auto hidden = static_cast<double>(layer.dimension("hidden"));
  const auto intermediate = static_cast<double>(layer.dimension("intermediate"));
  const RoutingExpectation routing = expected_routing(tokens, slots, top_k, shared_slots);
  // The streaming kernel streams an expert's weights once per 64-row block; the library path once per expert.
  const double weight_passes = path == ExpertPath::streaming ? routing.blocks : routing.active_experts;
  const double element =
      weight_bytes(layer) * (path == ExpertPath::streaming ? 1.0 : library_bytes_per_weight_byte(weight_bytes(layer)));
  GroupedWork work;
  // doc 002: GEMM1 w13 [2I, H] gathers each row's hidden state and writes its SiLU-and-mul activation.
  work.gate_up.flops = 2.0 * routing.rows * 2.0 * intermediate * hidden;
  work.gate_up.bytes = weight_passes * 2.0 * intermediate * hidden * element +
                       routing.rows * (hidden + intermediate) * kActivationBytes;
  // doc 002: GEMM2 w2 [H, I] reads the activation and writes one hidden row per entry.
  work.down.flops = 2.0 * routing.rows * hidden * intermediate;
  work.down.bytes =
      weight_passes * hidden * intermediate * element + routing.rows * (intermediate + hidden) * kActivationBytes;
  return work;
}

GroupedWork shared_work(const Measurement& layer) {
  const auto tokens = static_cast<double>(layer.dimension("tokens"));
  const auto hidden = static_cast<double>(layer.dimension("hidden"));
  const auto intermediate = static_cast<double>(layer.dimension("shared_intermediate"));
  GroupedWork work;
  work.gate_up.flops = 2.0 * tokens * 2.0 * intermediate * hidden;
  work.gate_up.bytes = 2.0 * intermediate * hidden * 2.0 + tokens * (hidden + 2.0 * intermediate) * kActivationBytes;
  work.down.flops = 2.0 * tokens * hidden * intermediate;
  work.down.bytes = hidden * intermediate * 2.0 + tokens * (intermediate + hidden) * kActivationBytes;
  return work;
}

}  // namespace moeplan::calib
