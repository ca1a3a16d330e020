#include "plan/load_skew.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

namespace moeplan {

namespace {

// E[max of n iid N(0, 1)] = integral of x n phi(x) Phi(x)^(n-1) dx, by Simpson's rule on [-8, 9]
// (n >= 1; the integrand is below 1e-14 outside that range for n <= 2^20).
double integrate_expected_maximum(std::int64_t draws) {
  constexpr double kLow = -8.0, kHigh = 9.0;
  constexpr int kIntervals = 1700;  // even
  const double step = (kHigh - kLow) / kIntervals;
  const auto n = static_cast<double>(draws);
  double sum = 0.0;
  for (int i = 0; i <= kIntervals; ++i) {
    const double x = kLow + step * i;
    const double density = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
    const double below = 0.5 * std::erfc(-x / std::numbers::sqrt2);
    const double value = x * n * density * std::pow(below, n - 1.0);
    const double weight = (i == 0 || i == kIntervals) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0);
    sum += weight * value;
  }
  return sum * step / 3.0;
}

// The skews of n ranks measured from their mean: n exchangeable loads of fixed total, X_i = s (Z_i - Z_mean)
// with Z iid standard normal, so E[max X_i] = s E[max Z_i] (the mean term does not move the argmax).
double extreme_of(std::int64_t ranks) {
  thread_local std::map<std::int64_t, double> known;
  const auto found = known.find(ranks);
  if (found != known.end()) return found->second;
  return known[ranks] = expected_maximum_of_normals(ranks);
}

}  // namespace

double expected_maximum_of_normals(std::int64_t draws) {
  if (draws <= 1) return 0.0;
  return integrate_expected_maximum(draws);
}

double popularity_skew(const Model& model, const Layout& layout, const SkewModel& skew) {
  if (layout.ep == 1) return 1.0;
  const double experts_per_rank = static_cast<double>(layout.physical_experts(model)) / static_cast<double>(layout.ep);
  const double rebalance = layout.redundant > 0 ? skew.residual_after_rebalance : 1.0;
  return 1.0 + rebalance * skew.expert_load_variation / std::sqrt(experts_per_rank) * extreme_of(layout.ep);
}

double sampling_skew(const Model& model, const Layout& layout, double tokens_per_rank) {
  if (layout.ep == 1) return 1.0;
  const auto experts = static_cast<double>(model.moe.num_experts);
  const auto picks = static_cast<double>(model.moe.experts_per_token);
  const double rows_per_rank =
      std::max(1.0, tokens_per_rank * static_cast<double>(layout.dp) * picks / static_cast<double>(layout.ep));
  // A token's k picks are distinct experts: its rows on one rank are hypergeometric, variance per row
  // (E - k) / (E - 1) of a Poisson count's.
  const double distinct_picks = experts > 1.0 ? std::max(0.0, (experts - picks) / (experts - 1.0)) : 1.0;
  return 1.0 + extreme_of(layout.ep) * std::sqrt(distinct_picks / rows_per_rank);
}

double max_over_mean(const Model& model, const Layout& layout, double tokens_per_rank, const SkewModel& skew) {
  return popularity_skew(model, layout, skew) * sampling_skew(model, layout, tokens_per_rank);
}

}  // namespace moeplan
