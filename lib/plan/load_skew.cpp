#include "plan/load_skew.hpp"

#include <algorithm>
#include <cmath>

namespace moeplan {

namespace {

// Expected maximum of ep standard normal draws, roughly.
double extreme_of(std::int64_t ranks) { return std::sqrt(2.0 * std::log(static_cast<double>(ranks))); }

}  // namespace

double popularity_skew(const Model& model, const Layout& layout, const SkewModel& skew) {
  if (layout.ep == 1) return 1.0;
  const double experts_per_rank = static_cast<double>(layout.physical_experts(model)) / static_cast<double>(layout.ep);
  const double rebalance = layout.redundant > 0 ? skew.residual_after_rebalance : 1.0;
  return 1.0 + rebalance * skew.expert_load_variation / std::sqrt(experts_per_rank) * extreme_of(layout.ep);
}

double sampling_skew(const Model& model, const Layout& layout, double tokens_per_rank) {
  if (layout.ep == 1) return 1.0;
  const double rows_per_rank =
      std::max(1.0, tokens_per_rank * static_cast<double>(layout.dp) *
                        static_cast<double>(model.moe.experts_per_token) / static_cast<double>(layout.ep));
  return 1.0 + extreme_of(layout.ep) / std::sqrt(rows_per_rank);
}

double max_over_mean(const Model& model, const Layout& layout, double tokens_per_rank, const SkewModel& skew) {
  return popularity_skew(model, layout, skew) * sampling_skew(model, layout, tokens_per_rank);
}

}  // namespace moeplan
