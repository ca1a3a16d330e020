#include "sim/latency.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace moeplan::sim {

namespace {

double percentile(const std::vector<double>& sorted, double fraction) {
  const double position = fraction * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

}  // namespace

LatencyStats latency_stats(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return {mean, percentile(values, 0.50), percentile(values, 0.90), percentile(values, 0.99)};
}

}  // namespace moeplan::sim
