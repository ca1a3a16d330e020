#pragma once
// How much busier the busiest EP rank is than the mean when no expert-load log is given: a
// documented stand-in for the imbalance doc 003 measures (balancedness = mean / max tokens per GPU).
#include "spec/layout.hpp"
#include "spec/model.hpp"

namespace moeplan {

struct SkewModel {
  // Coefficient of variation of per-expert load. doc 003 reports strongly uneven expert
  // distributions in both prefill and decode; 0.5 is an assumption until a log replaces it.
  double expert_load_variation = 0.5;
  // Share of the popularity skew that an EPLB placement with redundant slots leaves (doc 003:
  // EPLB recovers most of the utilisation lost as EP grows).
  double residual_after_rebalance = 0.25;
};

// Busiest rank's expert rows over the mean for `tokens_per_rank` tokens on every attention DP rank.
// Two parts multiply: the static popularity skew over the experts a rank holds, and the sampling
// noise of routing `mean` rows (the extreme of ep draws: sqrt(2 ln ep / mean)).
double max_over_mean(const Model& model, const Layout& layout, double tokens_per_rank, const SkewModel& skew);

}  // namespace moeplan
