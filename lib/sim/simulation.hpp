#pragma once
// Serving over time (issue 4): a time-stepped simulation of one layout, or of a prefill pool and a
// decode pool together, on plan-deploy's step-time and memory models. KV grows token by token,
// admission stops when the cache binds and the newest sequence is preempted when it overflows, so the
// simulation sees what a static estimate cannot ([doc-004]: a slower step can win once memory binds).
#include <cstdint>
#include <optional>
#include <vector>

#include "cost/memory.hpp"
#include "plan/serving.hpp"
#include "sim/series.hpp"

namespace moeplan::sim {

struct SimulationOptions {
  std::optional<std::int64_t> max_batch;  // running sequences per DP rank; default: the scenario's memory.max_batch
  std::optional<std::vector<std::int64_t>> graph_batch_sizes;  // default: the scenario's memory.graph_batch_sizes
  double duration = 0;              // s of serving to simulate; 0 = until every request finished
  std::size_t series_points = 200;  // the time series keeps between this many and twice as many rows
  std::uint64_t seed = 4;           // request lengths the workload spreads, Poisson arrivals at a request rate
};

// One pool: a layout, the dispatch it runs, and how many instances of it serve side by side.
struct PoolSpec {
  Layout layout;
  RoleOptions options;
  std::int64_t instances = 1;
};

struct LatencyStats {
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
};

struct PoolResult {
  PoolSpec pool;
  MemoryPlan memory;
  std::int64_t max_batch = 0;  // per DP rank
  std::int64_t gpus = 0;
  std::int64_t steps = 0;  // summed over instances
  std::int64_t preemptions = 0;
  std::int64_t cached_prefill_tokens = 0;  // recomputed tokens the prefix cache returned
  std::optional<double> memory_binds_at;   // s: the first preemption or KV-refused admission
  std::vector<SeriesPoint> series;
};

struct SimulationSummary {
  double elapsed = 0;  // s, from the start to the last finish (or the duration limit)
  std::int64_t completed = 0;
  std::int64_t output_tokens = 0;
  double output_tokens_per_second = 0;
  double output_tokens_per_gpu = 0;
  double requests_per_second = 0;
  LatencyStats ttft;  // s, send to first token
  LatencyStats tpot;  // s per output token after the first
  std::optional<double> memory_binds_at;
  std::int64_t preemptions = 0;
  std::int64_t cached_prefill_tokens = 0;  // of the preempted requests' tokens, those not recomputed
};

struct SimulationResult {
  SimulationSummary summary;
  std::vector<PoolResult> pools;  // aggregated: one; disaggregated: prefill, then decode
};

// Prefill and decode on the same ranks (vLLM/SGLang chunked prefill mixed into decode steps).
SimulationResult simulate_aggregated(const ServingContext& context, const PoolSpec& pool,
                                     const SimulationOptions& options);

// A prefill pool and a decode pool: the decode pool admits a request once its prefill finished and its
// KV crossed the inter-node link.
SimulationResult simulate_disaggregated(const ServingContext& context, const PoolSpec& prefill, const PoolSpec& decode,
                                        const SimulationOptions& options);

// The dispatch and overlap setting estimate_serving rates best for a layout in a role (the first one
// role_options lists when none serves).
RoleOptions best_role_options(const ServingContext& context, const Layout& layout, Role role);

}  // namespace moeplan::sim
