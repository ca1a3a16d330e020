#include "eplb/metrics.hpp"

#include <algorithm>
#include <numeric>

namespace moeplan::eplb {

std::vector<double> gpu_loads(std::span<const TokenCount> weights, const SlotRow& row, const DeploymentShape& shape) {
  const auto counts = replica_counts(row, shape.experts);
  std::vector<double> loads(static_cast<std::size_t>(shape.gpus), 0.0);
  const auto per_gpu = shape.slots_per_gpu();
  for (std::int64_t slot = 0; slot < static_cast<std::int64_t>(row.size()); ++slot) {
    const auto expert = row[slot];
    loads[slot / per_gpu] += static_cast<double>(weights[expert]) / static_cast<double>(counts[expert]);
  }
  return loads;
}

double max_load(std::span<const double> loads) { return *std::max_element(loads.begin(), loads.end()); }

double balancedness(std::span<const double> loads) {
  const double largest = max_load(loads);
  if (largest <= 0) return 1.0;
  const double mean = std::accumulate(loads.begin(), loads.end(), 0.0) / static_cast<double>(loads.size());
  return mean / largest;
}

double cross_node_dispatch_share(std::span<const TokenCount> weights, const SlotRow& row,
                                 const DeploymentShape& shape) {
  // holding[e]: the nodes holding a replica of expert e. Slots come node by node, so a node is new
  // to an expert when it differs from the last node it was met on.
  std::vector<std::int64_t> holding(static_cast<std::size_t>(shape.experts), 0);
  std::vector<std::int64_t> last_node(static_cast<std::size_t>(shape.experts), -1);
  const auto per_node = shape.slots_per_gpu() * shape.gpus_per_node();
  for (std::int64_t slot = 0; slot < static_cast<std::int64_t>(row.size()); ++slot) {
    const auto node = slot / per_node;
    if (last_node[row[slot]] != node) ++holding[row[slot]];
    last_node[row[slot]] = node;
  }
  double crossing = 0;
  double total = 0;
  for (std::int64_t expert = 0; expert < shape.experts; ++expert) {
    crossing += static_cast<double>(weights[expert]) * static_cast<double>(shape.nodes - holding[expert]) /
                static_cast<double>(shape.nodes);
    total += static_cast<double>(weights[expert]);
  }
  return total > 0 ? crossing / total : 0.0;
}

}  // namespace moeplan::eplb
