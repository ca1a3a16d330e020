#include "plan/load_skew.hpp"

#include <algorithm>
#include <cmath>

namespace moeplan {

double max_over_mean(const Model& model, const Layout& layout, double tokens_per_rank, const SkewModel& skew) {
  if (layout.ep == 1) return 1.0;
  const double ranks = static_cast<double>(layout.ep);
  const double extreme = std::sqrt(2.0 * std::log(ranks));  // expected max of ep standard normals, roughly
  const double experts_per_rank = static_cast<double>(layout.physical_experts(model)) / ranks;
  const double rebalance = layout.redundant > 0 ? skew.residual_after_rebalance : 1.0;
  const double popularity = 1.0 + rebalance * skew.expert_load_variation / std::sqrt(experts_per_rank) * extreme;
  const double rows_per_rank = std::max(1.0, tokens_per_rank * static_cast<double>(layout.dp) *
                                                 static_cast<double>(model.moe.experts_per_token) / ranks);
  const double sampling = 1.0 + extreme / std::sqrt(rows_per_rank);
  return popularity * sampling;
}

}  // namespace moeplan
