#pragma once
// The charts of the eplb-solve report: GPU load per layer before and after, balancedness per layer
// against its bound, and the replicas the hottest experts received.
#include <string>

#include "eplb/evaluation.hpp"
#include "eplb/load_log.hpp"
#include "eplb/placement.hpp"
#include "report/heatmap.hpp"
#include "report/xy_chart.hpp"

namespace moeplan::report {

// Tokens each GPU receives in each MoE layer (windows summed) over the layer's mean per GPU: 1 is
// perfect balance. Shape [layers][gpus].
std::vector<std::vector<double>> relative_gpu_loads(const eplb::LoadLog& log, const eplb::Placement& placement);

// One heatmap of relative loads on a ratio colour scale from 1 / high to high, shared by the maps compared.
Heatmap load_heatmap(const std::vector<std::vector<double>>& loads, const std::string& title, double high);

// Balancedness (mean / max tokens per GPU) per layer before and after, and the best any placement of
// the policy's kind could reach: mean / lower bound on the busiest GPU.
XyChart balancedness_chart(const eplb::PlacementEvaluation& before, const eplb::PlacementEvaluation& after);

// Replicas of each layer's three hottest experts; the tooltips give each one's share of the layer's tokens.
XyChart hottest_replicas_chart(const eplb::LoadLog& log, const eplb::PlacementEvaluation& after);

}  // namespace moeplan::report
