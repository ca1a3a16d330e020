#pragma once
// Synthetic load logs of a given shape and skew, for the routing study, the benchmark and tests: expert
// popularity log-normal, times a log-normal factor per group. Reproducible on every platform: the
// generator is splitmix64 and Box-Muller written out here, not the standard library's distributions.
#include <cstdint>

#include "eplb/load_log.hpp"

namespace moeplan::eplb {

// The size of a synthetic load log and the skew of its counts.
struct SyntheticLoadShape {
  std::int64_t layers = 1;
  std::int64_t experts = 256;
  std::int64_t groups = 8;
  std::int64_t dispatches_per_layer = 1 << 20;  // tokens x experts per token
  double expert_sigma = 1.0;                    // log-normal spread of expert popularity (0 = uniform)
  double group_sigma = 0.0;                     // log-normal spread of whole groups (hot groups)
  std::uint64_t seed = 1;
};

// Counts [layers][experts] (one window), each layer summing exactly to dispatches_per_layer: the
// expected counts rounded down, the remainder handed out by largest fraction (lower index on ties).
LoadLog synthetic_load_log(const SyntheticLoadShape& shape);

// Popularity shares of one layer [experts], summing to 1: the distribution synthetic_load_log draws.
std::vector<double> synthetic_popularity(const SyntheticLoadShape& shape, std::int64_t layer);

// splitmix64: the next 64 random bits from `state` (advanced in place).
std::uint64_t next_random(std::uint64_t& state);
// A uniform double in [0, 1) from `state`.
double next_uniform(std::uint64_t& state);
// A standard normal from `state` (Box-Muller, one value per call).
double next_normal(std::uint64_t& state);

}  // namespace moeplan::eplb
