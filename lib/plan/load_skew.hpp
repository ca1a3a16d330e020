#pragma once
// How much busier the busiest EP rank is than the mean ([doc-003]: balancedness = mean / max tokens
// per GPU). Two parts multiply: the static skew of expert popularity over the experts a rank holds,
// and the sampling noise of routing a finite batch. Without an expert-load log a documented skew
// model stands in for the first; with one, eplb-solve's placements measure it (load_imbalance.hpp).
#include <cstdint>

#include "spec/layout.hpp"
#include "spec/model.hpp"

namespace moeplan {

struct SkewModel {
  // Coefficient of variation of per-expert load. [doc-003] reports strongly uneven expert
  // distributions in both prefill and decode; 0.5 is an assumption until a log replaces it.
  double expert_load_variation = 0.5;
  // Share of the popularity skew that an EPLB placement with redundant slots leaves ([doc-003]:
  // EPLB recovers most of the utilisation lost as EP grows).
  double residual_after_rebalance = 0.25;
};

// The expected maximum of n independent standard normal draws (0 for n <= 1): 0.5642 for 2, 1.0294 for
// 4, 1.4236 for 8 [moeplan-normal-maximum].
double expected_maximum_of_normals(std::int64_t draws);

// Popularity skew: 1 + variation / sqrt(experts per rank) x e(ep), with e(n) the expected maximum of n
// standard normals: the expected extreme of ep rank loads, reduced by rebalancing when redundant slots exist.
double popularity_skew(const Model& model, const Layout& layout, const SkewModel& skew);

// Sampling noise of `tokens_per_rank` tokens on every attention DP rank: 1 + e(ep) sqrt((E - k) / (E - 1)
// / rows), rows = the mean routed rows per EP rank (a token's k picks are distinct among E experts).
double sampling_skew(const Model& model, const Layout& layout, double tokens_per_rank);

// The skew model's busiest-rank ratio: popularity x sampling (1 when EP is 1).
double max_over_mean(const Model& model, const Layout& layout, double tokens_per_rank, const SkewModel& skew);

}  // namespace moeplan
