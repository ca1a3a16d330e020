// The simulate report: time series plotted at the middle of each interval, KV use in percent, the
// moment memory binds as a line, and one series per pool of a disaggregated run.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "markup.hpp"
#include "report/simulation_report.hpp"

namespace moeplan::report {

namespace {

sim::PoolResult pool(Role role, std::vector<sim::SeriesPoint> series) {
  sim::PoolResult result;
  result.pool.options.role = role;
  result.pool.layout.dp = 4;
  result.gpus = 4;
  result.series = std::move(series);
  return result;
}

sim::SimulationResult aggregated_run() {
  sim::SimulationResult result;
  result.pools.push_back(pool(Role::aggregated, {{0, 10, 100, 400, 8, 0, 0.5, 0}, {10, 10, 300, 0, 16, 4, 1.0, 2}}));
  result.summary.memory_binds_at = 12.4;
  result.summary.output_tokens_per_second = 200;
  result.summary.ttft.p50 = 1.5;
  return result;
}

}  // namespace

TEST_CASE("series points sit at the middle of their intervals, KV use in percent") {
  const sim::SimulationResult result = aggregated_run();
  const std::vector<SimulationRun> runs = {{"otp4", result}};
  const XyChart throughput = throughput_over_time(runs);
  REQUIRE(throughput.series.size() == 1);
  CHECK(throughput.series[0].label == "otp4 output tok/s");
  CHECK(throughput.series[0].data[0].x == approx(5));
  CHECK(throughput.series[0].data[1].x == approx(15));
  CHECK(throughput.series[0].data[1].y == approx(300));
  REQUIRE(throughput.references.size() == 1);
  CHECK(throughput.references[0].value == approx(12.4));
  const XyChart kv = kv_use_over_time(runs);
  CHECK(kv.series[0].data[0].y == approx(50));
  CHECK(kv.series[0].data[1].y == approx(100));
  const XyChart batch = sequences_over_time(runs);
  REQUIRE(batch.series.size() == 2);
  CHECK(batch.series[1].dashed);
  CHECK(batch.series[1].data[1].y == approx(4));
}

TEST_CASE("a disaggregated run draws the prefill pool's input rate and the decode pool's output rate") {
  sim::SimulationResult result;
  result.pools.push_back(pool(Role::prefill, {{0, 2, 10, 800, 1, 0, 0.1, 0}}));
  result.pools.push_back(pool(Role::decode, {{0, 2, 120, 0, 6, 0, 0.3, 0}}));
  const XyChart chart = throughput_over_time({{"pd", result}});
  REQUIRE(chart.series.size() == 2);
  CHECK(chart.series[0].data[0].y == approx(800));
  CHECK(chart.series[0].dashed);
  CHECK(chart.series[1].data[0].y == approx(120));
  CHECK(chart.references.empty());
}

TEST_CASE("the simulate report compares runs on one well-formed page") {
  const sim::SimulationResult first = aggregated_run();
  sim::SimulationResult second = aggregated_run();
  second.summary.memory_binds_at.reset();
  const std::string html = simulation_report_html(
      {"Test-MoE", "test", "uncalibrated: datasheet roofline", {{"otp1", first}, {"otp4", second}}});
  CHECK(testing::page_problems(html) == "");
  const auto markup = testing::read_markup(html);
  CHECK(testing::find(markup, "svg").size() == 3);
  CHECK(testing::find(markup, "polyline").size() == 2 + 4 + 2);  // throughput, running and waiting, KV use; per run
  CHECK(html.find("otp1: KV binds at 12 s") != std::string::npos);
  CHECK(html.find("otp4: KV binds") == std::string::npos);
  CHECK(html.find("<td class=\"number\">1.5</td>") != std::string::npos);  // TTFT p50 in s
}

}  // namespace moeplan::report
