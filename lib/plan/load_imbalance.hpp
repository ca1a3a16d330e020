#pragma once
// EP imbalance measured from an expert-load log: for each EP size and redundancy the search meets,
// eplb-solve places every MoE layer and the placement's GPU loads give the busiest rank's share and
// the dispatch traffic that leaves the token's node. Redundancy, EP size and placement are chosen
// together this way, instead of assuming a skew.
#include <cstdint>
#include <map>
#include <tuple>

#include "eplb/load_log.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"

namespace moeplan {

struct MeasuredImbalance {
  double max_over_mean = 1.0;    // mean over layers of busiest GPU load / mean GPU load
  double cross_node_share = -1;  // share of dispatched rows leaving the node; < 0 when one node
};

class ExpertLoadImbalance {
 public:
  ExpertLoadImbalance(eplb::LoadLog log, const Model& model);

  // Without redundant slots engines keep the trivial placement (expert e on rank e / (E / ep));
  // with them, EPLB runs [doc-003], here eplb-solve's automatic policy. Cached per shape.
  MeasuredImbalance at(const Layout& layout, std::int64_t nvlink_domain) const;  // a "node" is one NVLink domain

  const std::string& file() const { return log_.file; }

 private:
  eplb::LoadLog log_;
  std::int64_t experts_;
  std::int64_t groups_;
  mutable std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, MeasuredImbalance> cache_;
};

}  // namespace moeplan
