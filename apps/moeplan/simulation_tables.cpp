#include "simulation_tables.hpp"

#include <fmt/format.h>

#include "table.hpp"

namespace moeplan::cli {

namespace {

std::string seconds_or_never(const std::optional<double>& time) {
  return time ? fmt::format("{:.1f} s", *time) : std::string("never");
}

std::string latency_row(const sim::LatencyStats& stats, double scale) {
  return fmt::format("mean {:.1f}, p50 {:.1f}, p90 {:.1f}, p99 {:.1f}", stats.mean * scale, stats.p50 * scale,
                     stats.p90 * scale, stats.p99 * scale);
}

}  // namespace

std::string simulation_summary_text(const sim::SimulationResult& result) {
  const sim::SimulationSummary& summary = result.summary;
  std::string text =
      fmt::format("{} requests completed in {:.1f} s: {:.2f} output tokens/s ({:.2f} per GPU), {:.3f} requests/s\n",
                  summary.completed, summary.elapsed, summary.output_tokens_per_second, summary.output_tokens_per_gpu,
                  summary.requests_per_second);
  text += fmt::format("TTFT ms: {}\nTPOT ms: {}\n", latency_row(summary.ttft, 1e3), latency_row(summary.tpot, 1e3));
  text += fmt::format(
      "memory first binds at {}; {} preemptions (recomputed, {} tokens read back from the "
      "prefix cache)\n",
      seconds_or_never(summary.memory_binds_at), summary.preemptions, summary.cached_prefill_tokens);
  for (const sim::PoolResult& pool : result.pools) {
    text += fmt::format(
        "  {} pool: {} x {}, {} GPUs, {}{}, max batch {} per DP rank, KV {} tokens per DP rank, "
        "{} steps, memory binds at {}\n",
        role_name(pool.pool.options.role), pool.pool.instances, layout_label(pool.pool.layout), pool.gpus,
        dispatch_mode_name(pool.pool.options.dispatch), pool.pool.options.two_batch_overlap ? "+tbo" : "",
        pool.max_batch, pool.memory.max_kv_tokens, pool.steps, seconds_or_never(pool.memory_binds_at));
  }
  return text;
}

std::string simulation_series_table(const sim::SimulationResult& result, std::size_t rows) {
  Table table({"pool", "time s", "out tok/s", "prefill tok/s", "running", "waiting", "KV use", "preempted"});
  for (const sim::PoolResult& pool : result.pools) {
    const std::size_t stride = std::max<std::size_t>(1, (pool.series.size() + rows - 1) / rows);
    for (std::size_t index = 0; index < pool.series.size(); index += stride) {
      const sim::SeriesPoint& point = pool.series[index];
      table.add_row({role_name(pool.pool.options.role), fmt::format("{:.1f}", point.time),
                     fmt::format("{:.1f}", point.output_tokens_per_second),
                     fmt::format("{:.1f}", point.prefill_tokens_per_second), fmt::format("{:.1f}", point.running),
                     fmt::format("{:.1f}", point.waiting), fmt::format("{:.1f}%", point.kv_use * 100),
                     std::to_string(point.preemptions)});
    }
  }
  return table.render();
}

std::string simulated_ranking_table(const std::vector<sim::SimulatedCandidate>& ranking) {
  Table table({"#", "static #", "layout", "static tok/s/GPU", "simulated tok/s/GPU", "req/s", "TTFT p50 ms",
               "TPOT p50 ms", "memory binds s"});
  for (std::size_t index = 0; index < ranking.size(); ++index) {
    const sim::SimulatedCandidate& entry = ranking[index];
    const sim::SimulationSummary& simulated = entry.simulated;
    table.add_row({std::to_string(index + 1), std::to_string(entry.static_rank), layout_label(entry.candidate.layout),
                   fmt::format("{:.0f}", entry.candidate.serving.output_tokens_per_gpu),
                   fmt::format("{:.0f}", simulated.output_tokens_per_gpu),
                   fmt::format("{:.3f}", simulated.requests_per_second),
                   fmt::format("{:.1f}", simulated.ttft.p50 * 1e3), fmt::format("{:.1f}", simulated.tpot.p50 * 1e3),
                   simulated.memory_binds_at ? fmt::format("{:.1f}", *simulated.memory_binds_at) : "never"});
  }
  return table.render();
}

}  // namespace moeplan::cli
