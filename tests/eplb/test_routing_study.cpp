// The scale study of [doc-003]: sampled routing and utilisation against EP size.
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "eplb/routing_study.hpp"
#include "eplb/synthetic_loads.hpp"

using namespace moeplan::eplb;

TEST_CASE("a sampled batch routes every token to k distinct experts") {
  std::vector<double> shares(32, 1.0 / 32);
  shares[5] = 0.5;
  const double total = std::accumulate(shares.begin(), shares.end(), 0.0);
  for (auto& share : shares) share /= total;
  std::uint64_t state = 3;
  const RoutingModel routing{4, 4, 2};
  const auto counts = sample_batch(shares, routing, 1000, state);
  CHECK(std::accumulate(counts.begin(), counts.end(), TokenCount{0}) == 4000);
  for (const auto count : counts) CHECK(count <= 1000);  // distinct experts per token
}

TEST_CASE("[doc-003]: utilisation falls as EP grows, and EPLB with redundant experts recovers much of it") {
  SyntheticLoadShape skew;
  skew.layers = 2;
  skew.experts = 256;
  skew.groups = 8;
  skew.expert_sigma = 1.0;
  const auto log = synthetic_load_log(skew);
  RoutingStudyOptions options;
  options.ep_sizes = {8, 64, 256};
  options.batches = 2;
  options.layers = 2;
  const auto rows = run_routing_study(log, RoutingModel{}, options);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].trivial > rows[1].trivial);
  CHECK(rows[1].trivial > rows[2].trivial);
  for (const auto& row : rows) CHECK(row.eplb_redundant > row.trivial);
  CHECK(rows[2].slots_with_redundant == 512);  // ceil((256 + 32) / 256) * 256 [moeplan-eplb-study]
}

TEST_CASE("the study samples at most the log's layers") {
  LoadLog log;
  log.num_layers = 3;
  RoutingStudyOptions options;
  options.layers = 4;
  CHECK(sampled_layer_count(log, options) == 3);
  options.layers = 2;
  CHECK(sampled_layer_count(log, options) == 2);
}

TEST_CASE("the MoE slowdown is max over mean, the inverse of the utilisation") {
  CHECK(moe_slowdown(0.8) == doctest::Approx(1.25));
  CHECK(moe_slowdown(0.25) == doctest::Approx(4));
  CHECK(moe_slowdown(1) == 1);
  CHECK(std::isnan(moe_slowdown(std::nan(""))));
}
