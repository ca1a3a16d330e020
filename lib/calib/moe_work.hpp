#pragma once
// What one measured MoE layer must move and do, as the fit and the cost model count it: the grouped
// GEMMs' bytes and FLOPs on each kernel path, the unfused shared expert's dense GEMMs, and the routing
// statistics those depend on, taken as expectations over uniform top-k routing [moeplan-uniform-routing] so a
// prediction needs only the shape, never one run's draw.
#include "calib/measurement.hpp"
#include "cost/expert_routing.hpp"

namespace moeplan::calib {

// The grouped-GEMM path a measured layer took (cost/expert_routing.hpp), from its label.
ExpertPath measured_path(const Measurement& layer);

// Routing statistics of `tokens` tokens, each sending `top_k` rows to distinct experts among
// `routed_slots` uniformly, plus `shared_slots` fused shared experts that every token reaches.
// riding_rows: a last block of at most that many rows rides with the one before (moe/riding_rows.hpp).
struct RoutingExpectation {
  double rows = 0;
  double active_experts = 0;
  double blocks = 0;  // sum over experts of the 64-row blocks that run
};
RoutingExpectation expected_routing(double tokens, double routed_slots, double top_k, double shared_slots,
                                    int riding_rows = 0);

// The grouped GEMMs of a measured layer on `path` (cost/expert_routing.hpp), from its shape alone.
ExpertStageWork grouped_work(const Measurement& layer, ExpertPath path);

// The dense shared expert of the unfused variant: w13 [2 I_s, H] and w2 [H, I_s] bf16 GEMMs over every token.
ExpertStageWork shared_work(const Measurement& layer);

}  // namespace moeplan::calib
