#include "report/simulation_report.hpp"

#include <fmt/format.h>

#include "report/html_page.hpp"
#include "report/palette.hpp"

namespace moeplan::report {

namespace {

constexpr double kPercent = 100;

// One value of a time-series row, the quantity a chart plots.
using Quantity = double (*)(const sim::SeriesPoint&);

std::string pool_label(const SimulationRun& run, const sim::PoolResult& pool) {
  if (run.result.pools.size() == 1) return run.label;
  return fmt::format("{} {}", role_name(pool.pool.options.role), layout_label(pool.pool.layout));
}

// Each row plotted at the middle of its interval, where its mean holds.
Series time_series(const SimulationRun& run, const sim::PoolResult& pool, Quantity quantity, std::size_t colour,
                   bool dashed, const std::string& suffix) {
  Series series =
      line_series(pool_label(run, pool) + suffix, category_colour(colour), dashed ? "series secondary" : "series");
  series.dashed = dashed;
  for (const sim::SeriesPoint& point : pool.series)
    series.data.push_back({point.time + point.interval / 2, quantity(point), "", ""});
  return series;
}

// The moment memory first bound in each run, as a vertical line in the run's colour.
std::vector<ReferenceLine> binding_lines(const std::vector<SimulationRun>& runs) {
  std::vector<ReferenceLine> lines;
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const auto& binds = runs[index].result.summary.memory_binds_at;
    if (binds) {
      lines.push_back(
          {true, *binds, fmt::format("{}: KV binds at {:.0f} s", runs[index].label, *binds), category_colour(index)});
    }
  }
  return lines;
}

XyChart over_time(const std::vector<SimulationRun>& runs, std::string title, std::string y_title) {
  XyChart chart = titled_chart(std::move(title), "time (s)", std::move(y_title));
  chart.references = binding_lines(runs);
  return chart;
}

std::string simulation_milliseconds_text(double seconds) { return fmt::format("{:.1f}", seconds * 1e3); }

HtmlTable summary_table(const std::vector<SimulationRun>& runs) {
  HtmlTable table({"run", "GPUs", "output tok/s", "tok/s/GPU", "requests/s", "completed", "TTFT p50 s", "TTFT p99 s",
                   "TPOT p50 ms", "TPOT p99 ms", "KV binds at s", "preemptions"});
  for (const SimulationRun& run : runs) {
    const sim::SimulationSummary& summary = run.result.summary;
    std::int64_t gpus = 0;
    for (const sim::PoolResult& pool : run.result.pools) gpus += pool.gpus;
    table.rows.push_back({run.label, fmt::format("{}", gpus), fmt::format("{:.0f}", summary.output_tokens_per_second),
                          fmt::format("{:.1f}", summary.output_tokens_per_gpu),
                          fmt::format("{:.3f}", summary.requests_per_second), fmt::format("{}", summary.completed),
                          fmt::format("{:.1f}", summary.ttft.p50), fmt::format("{:.1f}", summary.ttft.p99),
                          simulation_milliseconds_text(summary.tpot.p50),
                          simulation_milliseconds_text(summary.tpot.p99),
                          summary.memory_binds_at ? fmt::format("{:.0f}", *summary.memory_binds_at) : "never",
                          fmt::format("{}", summary.preemptions)});
  }
  return table;
}

}  // namespace

XyChart throughput_over_time(const std::vector<SimulationRun>& runs) {
  XyChart chart = over_time(runs, "Throughput over time", "tokens/s");
  for (std::size_t index = 0; index < runs.size(); ++index) {
    for (const sim::PoolResult& pool : runs[index].result.pools) {
      if (pool.pool.options.role == Role::prefill) {
        chart.series.push_back(time_series(
            runs[index], pool, [](const sim::SeriesPoint& point) { return point.prefill_tokens_per_second; }, index,
            true, " input tok/s"));
      } else {
        chart.series.push_back(time_series(
            runs[index], pool, [](const sim::SeriesPoint& point) { return point.output_tokens_per_second; }, index,
            false, " output tok/s"));
      }
    }
  }
  return chart;
}

XyChart sequences_over_time(const std::vector<SimulationRun>& runs) {
  XyChart chart = over_time(runs, "Batch over time", "sequences (summed over DP ranks)");
  for (std::size_t index = 0; index < runs.size(); ++index) {
    for (const sim::PoolResult& pool : runs[index].result.pools) {
      chart.series.push_back(time_series(
          runs[index], pool, [](const sim::SeriesPoint& point) { return point.running; }, index, false, " running"));
      chart.series.push_back(time_series(
          runs[index], pool, [](const sim::SeriesPoint& point) { return point.waiting; }, index, true, " waiting"));
    }
  }
  return chart;
}

XyChart kv_use_over_time(const std::vector<SimulationRun>& runs) {
  XyChart chart = over_time(runs, "KV cache use over time", "KV cache in use (%)");
  chart.y.high = kPercent;
  for (std::size_t index = 0; index < runs.size(); ++index) {
    for (const sim::PoolResult& pool : runs[index].result.pools) {
      chart.series.push_back(time_series(
          runs[index], pool, [](const sim::SeriesPoint& point) { return point.kv_use * kPercent; }, index, false, ""));
    }
  }
  return chart;
}

std::string simulation_report_html(const SimulationReportInput& input) {
  std::string labels;
  for (const SimulationRun& run : input.runs) labels += (labels.empty() ? "" : " vs ") + run.label;
  HtmlPage page("moeplan simulate: " + input.model_name, fmt::format("scenario {}: {}", input.scenario_name, labels));
  page.facts({{"model", input.model_name}, {"scenario", input.scenario_name}, {"estimates", input.estimates}});
  page.section("Summary");
  page.table(summary_table(input.runs));
  page.section("Serving over time");
  page.figure(
      xy_chart_svg(throughput_over_time(input.runs)),
      "Tokens per second in each interval of the run. Throughput climbs while the batch fills and falls back once "
      "the KV cache binds: admissions stop and sequences are preempted (the vertical lines).");
  page.figure(xy_chart_svg(sequences_over_time(input.runs)),
              "Sequences admitted (running) and queued at the engines (waiting), summed over the DP ranks.");
  page.figure(xy_chart_svg(kv_use_over_time(input.runs)),
              "Share of the KV cache in use: every decoding sequence adds one token per step until the cache is full.");
  return page.finish();
}

}  // namespace moeplan::report
