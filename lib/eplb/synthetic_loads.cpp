#include "eplb/synthetic_loads.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

namespace moeplan::eplb {

std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t value = (state += 0x9E3779B97F4A7C15ULL);
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
  return value ^ (value >> 31);
}

double next_uniform(std::uint64_t& state) { return static_cast<double>(next_random(state) >> 11) * 0x1.0p-53; }

double next_normal(std::uint64_t& state) {
  const double radius = std::sqrt(-2.0 * std::log(1.0 - next_uniform(state)));
  return radius * std::cos(2.0 * std::numbers::pi * next_uniform(state));
}

std::vector<double> synthetic_popularity(const SyntheticLoadShape& shape, std::int64_t layer) {
  std::uint64_t state = shape.seed * 0x100000001B3ULL + static_cast<std::uint64_t>(layer);
  std::vector<double> group_factor(static_cast<std::size_t>(shape.groups));
  for (auto& factor : group_factor) factor = std::exp(shape.group_sigma * next_normal(state));
  std::vector<double> shares(static_cast<std::size_t>(shape.experts));
  const auto group_size = shape.experts / shape.groups;
  for (std::int64_t expert = 0; expert < shape.experts; ++expert) {
    shares[expert] = group_factor[expert / group_size] * std::exp(shape.expert_sigma * next_normal(state));
  }
  const double total = std::accumulate(shares.begin(), shares.end(), 0.0);
  for (auto& share : shares) share /= total;
  return shares;
}

LoadLog synthetic_load_log(const SyntheticLoadShape& shape) {
  LoadLog log;
  log.file = "synthetic";
  log.num_layers = shape.layers;
  log.num_experts = shape.experts;
  log.num_groups = shape.groups;
  for (std::int64_t layer = 0; layer < shape.layers; ++layer) {
    const auto shares = synthetic_popularity(shape, layer);
    std::vector<double> remainders(shares.size());
    TokenCount assigned = 0;
    const auto first = log.counts.size();
    for (std::size_t expert = 0; expert < shares.size(); ++expert) {
      const double expected = shares[expert] * static_cast<double>(shape.dispatches_per_layer);
      log.counts.push_back(static_cast<TokenCount>(std::floor(expected)));
      remainders[expert] = expected - std::floor(expected);
      assigned += log.counts.back();
    }
    std::vector<std::size_t> order(shares.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return remainders[a] > remainders[b]; });
    for (std::size_t index = 0; assigned < shape.dispatches_per_layer; ++index, ++assigned) {
      ++log.counts[first + order[index % order.size()]];
    }
  }
  return log;
}

}  // namespace moeplan::eplb
