#pragma once
// Issue 5's quality measure on synthetic skewed loads: per layer, our maximum GPU load against
// DeepSeek's EPLB (our re-implementation of [deepseek-eplb]) and against the lower bound (group-local
// under the hierarchical policy, pooled under the global one). moeplan-bench-eplb prints it and
// moeplan-validate checks the target on the same cases.
#include <cstdint>
#include <string>
#include <vector>

#include "eplb/deployment_shape.hpp"
#include "eplb/load_log.hpp"

namespace moeplan::eplb {

// A deployment shape and the skew of its synthetic loads (lib/eplb/synthetic_loads.hpp).
struct SkewedCase {
  std::string name;
  DeploymentShape shape;
  double expert_sigma = 1.0;
  double group_sigma = 0.0;
};

// `layers` layers of 65536 tokens routed to 8 experts each, drawn with `seed`.
LoadLog skewed_loads(const SkewedCase& skewed, std::int64_t layers, std::uint64_t seed);

// The 13 balance cases: hierarchical EP32, one node, global EP32, EP144 and EP320 decode, Kimi-K2.
std::vector<SkewedCase> quality_cases();

struct QualityTotals {
  std::int64_t layers = 0;
  std::int64_t worse_layers = 0;   // ours above EPLB: must stay 0
  std::int64_t gapped_layers = 0;  // EPLB more than 1 % above the bound
  double eplb_gap_sum = 0;         // over gapped layers: EPLB / bound - 1
  double ours_gap_sum = 0;         // over gapped layers: ours / bound - 1
  double closed_sum = 0;           // over gapped layers: (EPLB - ours) / (EPLB - bound)

  void add(const QualityTotals& other);
  double mean_closed() const;  // closed share over the gapped layers; 0 with none
};

// One case scored on 58 layers drawn with seed 11, under the automatic policy.
QualityTotals score_against_eplb(const SkewedCase& skewed);

}  // namespace moeplan::eplb
