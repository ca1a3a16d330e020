#include "plan/load_imbalance.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "eplb/metrics.hpp"
#include "eplb/placement.hpp"
#include "eplb/solve.hpp"
#include "io/input_error.hpp"
#include "io/reporter.hpp"

namespace moeplan {

namespace {

MeasuredImbalance measure(const eplb::LoadLog& log, const eplb::DeploymentShape& shape, bool rebalance) {
  SilentReporter silent;
  const eplb::Placement placement = rebalance ? eplb::place_all_layers(log, shape, eplb::automatic_policy(shape),
                                                                       eplb::WindowObjective::worst, silent)
                                              : eplb::Placement{};
  double ratio_sum = 0;
  double cross_sum = 0;
  for (std::int64_t layer = 0; layer < log.num_layers; ++layer) {
    const std::vector<eplb::TokenCount> weights = log.layer_total(layer);
    const eplb::SlotRow row = rebalance ? placement.physical_to_logical[static_cast<std::size_t>(layer)]
                                        : eplb::trivial_row(shape);  // the engine default without EPLB
    const std::vector<double> loads = eplb::gpu_loads(weights, row, shape);
    const double balance = eplb::balancedness(loads);
    ratio_sum += balance > 0 ? 1.0 / balance : 1.0;
    cross_sum += eplb::cross_node_dispatch_share(weights, row, shape);
  }
  const auto layers = static_cast<double>(std::max<std::int64_t>(1, log.num_layers));
  return {ratio_sum / layers, shape.nodes > 1 ? cross_sum / layers : -1.0};
}

}  // namespace

ExpertLoadImbalance::ExpertLoadImbalance(eplb::LoadLog log, const Model& model)
    : log_(std::move(log)), experts_(model.moe.num_experts), groups_(model.moe.num_groups) {
  if (log_.num_experts != experts_) {
    throw InputError(log_.file, "num_experts",
                     fmt::format("{} experts per layer as in {}, got {}", experts_, model.file, log_.num_experts));
  }
  if (log_.num_layers != model.moe_layers()) {
    throw InputError(log_.file, "num_layers",
                     fmt::format("{} MoE layers as in {}, got {}", model.moe_layers(), model.file, log_.num_layers));
  }
}

MeasuredImbalance ExpertLoadImbalance::at(const Layout& layout, std::int64_t nvlink_domain) const {
  if (layout.ep == 1) return {};
  const std::int64_t nodes = std::max<std::int64_t>(1, (layout.ep + nvlink_domain - 1) / nvlink_domain);
  const auto key = std::make_tuple(layout.ep, layout.redundant, nodes);
  if (const auto found = cache_.find(key); found != cache_.end()) return found->second;
  eplb::DeploymentShape shape{nodes, layout.ep, experts_ + layout.redundant, experts_, groups_};
  if (shape.gpus % shape.nodes != 0) shape.nodes = 1;  // an EP group that fills no whole node
  const MeasuredImbalance measured = measure(log_, shape, layout.redundant > 0);
  cache_.emplace(key, measured);
  return measured;
}

}  // namespace moeplan
