#include "sim/output.hpp"

#include <fmt/format.h>

namespace moeplan::sim {

namespace {

nlohmann::json latency_json(const LatencyStats& stats) {
  return {{"mean", stats.mean}, {"p50", stats.p50}, {"p90", stats.p90}, {"p99", stats.p99}};
}

nlohmann::json optional_time(const std::optional<double>& time) {
  return time ? nlohmann::json(*time) : nlohmann::json(nullptr);
}

nlohmann::json series_json(const std::vector<SeriesPoint>& series) {
  nlohmann::json rows = nlohmann::json::array();
  for (const SeriesPoint& point : series) {
    rows.push_back({{"time", point.time},
                    {"interval", point.interval},
                    {"output_tokens_per_second", point.output_tokens_per_second},
                    {"prefill_tokens_per_second", point.prefill_tokens_per_second},
                    {"running", point.running},
                    {"waiting", point.waiting},
                    {"kv_use", point.kv_use},
                    {"preemptions", point.preemptions}});
  }
  return rows;
}

nlohmann::json pool_json(const PoolResult& pool) {
  return {{"role", role_name(pool.pool.options.role)},
          {"layout", layout_json(pool.pool.layout)},
          {"instances", pool.pool.instances},
          {"gpus", pool.gpus},
          {"dispatch", dispatch_mode_name(pool.pool.options.dispatch)},
          {"two_batch_overlap", pool.pool.options.two_batch_overlap},
          {"max_batch_per_dp_rank", pool.max_batch},
          {"max_kv_tokens", pool.memory.max_kv_tokens},
          {"steps", pool.steps},
          {"preemptions", pool.preemptions},
          {"cached_prefill_tokens", pool.cached_prefill_tokens},
          {"memory_binds_at", optional_time(pool.memory_binds_at)},
          {"series", series_json(pool.series)}};
}

}  // namespace

nlohmann::json simulation_json(const SimulationResult& result) {
  const SimulationSummary& summary = result.summary;
  nlohmann::json pools = nlohmann::json::array();
  for (const PoolResult& pool : result.pools) pools.push_back(pool_json(pool));
  return {{"summary",
           {{"elapsed", summary.elapsed},
            {"completed", summary.completed},
            {"output_tokens", summary.output_tokens},
            {"output_tokens_per_second", summary.output_tokens_per_second},
            {"output_tokens_per_gpu", summary.output_tokens_per_gpu},
            {"requests_per_second", summary.requests_per_second},
            {"ttft", latency_json(summary.ttft)},
            {"tpot", latency_json(summary.tpot)},
            {"memory_binds_at", optional_time(summary.memory_binds_at)},
            {"preemptions", summary.preemptions},
            {"cached_prefill_tokens", summary.cached_prefill_tokens}}},
          {"pools", pools}};
}

std::string simulation_csv(const SimulationResult& result) {
  std::string text =
      "pool,time_s,interval_s,output_tokens_per_s,prefill_tokens_per_s,running,waiting,kv_use,preemptions\n";
  for (const PoolResult& pool : result.pools) {
    const std::string role = role_name(pool.pool.options.role);
    for (const SeriesPoint& point : pool.series) {
      text += fmt::format("{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{}\n", role, point.time, point.interval,
                          point.output_tokens_per_second, point.prefill_tokens_per_second, point.running, point.waiting,
                          point.kv_use, point.preemptions);
    }
  }
  return text;
}

}  // namespace moeplan::sim
