#pragma once
// Sizing and cost: the fewest GPUs, over a range of cluster sizes, that carry a target request rate within
// the SLOs (the layout, aggregated or prefill/decode pools, its instances and the capacity left), and the
// dollars per million tokens a plan costs at the load it is priced at (plan/token_cost.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cost/step_price.hpp"
#include "io/reporter.hpp"
#include "plan/load_imbalance.hpp"
#include "plan/search.hpp"
#include "plan/token_cost.hpp"
#include "predict/offered_load.hpp"
#include "spec/scenario.hpp"

namespace moeplan::predict {

// Limits that keep a sizing run to minutes: cluster sizes tried, and the largest size (a search of 1024
// H200s takes about a second on two cores; each size is one search).
constexpr std::size_t kMostClusterSizes = 64;
constexpr std::int64_t kMostSizingGpus = 4096;

// The cluster sizes a sizing tries, smallest first: the powers of two that divide one node and are smaller
// than it, then whole nodes of `gpus_per_node`, each within [min_gpus, max_gpus]. Throws InputError naming
// `file` and sizing.min_gpus or sizing.max_gpus when the range holds no size, more than kMostClusterSizes
// sizes or more than kMostSizingGpus GPUs.
std::vector<std::int64_t> sizing_cluster_sizes(const Sizing& sizing, std::int64_t gpus_per_node,
                                               const std::string& file);

// The scenario on a cluster of `gpus` GPUs (whole nodes, or one part-filled node) offered `request_rate`
// requests/s, with no sizing block.
Scenario scenario_of_size(const Scenario& scenario, std::int64_t gpus, double request_rate);

// One way of carrying the target on a cluster size.
struct SizedLayout {
  bool disaggregated = false;
  Candidate serving;                 // the aggregated instance, or the decode instance
  std::optional<Candidate> prefill;  // the prefill instance when disaggregated
  std::int64_t instances = 0;        // aggregated instances, or decode instances
  std::int64_t prefill_instances = 0;
  std::int64_t gpus_used = 0;  // GPUs the instances occupy; the rest of the cluster idles
  double capacity_rate = 0;    // requests/s the cluster serves within the SLOs
};

// The best capacity found on one cluster size.
struct SizeTried {
  std::int64_t gpus = 0;
  double capacity_rate = 0;  // requests/s; 0: no layout fits or meets the SLOs
  std::string layout;        // the layout that gave it; empty when none
};

struct SizingAnswer {
  Sizing request;
  std::int64_t gpus = 0;              // the fewest GPUs that carry the target; 0: none in the range does
  std::optional<SizedLayout> choice;  // on `gpus`: the layout with the most capacity left
  LoadEstimate at_target;             // one instance at its share of the target (the decode pool's TPOT and
                                      // the prefill instance's TTFT when disaggregated)
  double spare_rate = 0;              // requests/s the choice serves beyond the target
  double spare_fraction = 0;          // spare_rate over the choice's capacity
  TokenCost cost;                     // `gpus` GPUs at the cluster's price serving the target
  std::vector<SizeTried> tried;       // every size tried, smallest first
};

// Answers the scenario's sizing block: each size's search (plan/search.hpp) with every aggregated layout's
// capacity within the SLOs over the instances the size holds (capacity_under_slo, one instance's figure
// times its instances) and every prefill/decode pairing's (the smaller of the prefill pool's and the decode
// pool's request rates), smallest size first until one carries the target. `steps` is the search's.
SizingAnswer size_cluster(const Model& model, const Scenario& scenario, const StepCost& steps, Reporter& reporter,
                          const ExpertLoadImbalance* measured_loads = nullptr);

// What a plan's offered-load row costs on the scenario's cluster: its GPUs at the cluster's price over the
// requests it serves (the offered rate, or with a concurrency the instances' in-flight requests over a
// request's time, TTFT plus TPOT per later token); unpriced when the load is not sustained.
TokenCost cost_at_load(const LoadEstimate& estimate, const Scenario& scenario);

}  // namespace moeplan::predict
