// The plan-deploy report: the Pareto front holds exactly the candidates marked pareto, the SLO lines sit
// where the SLOs put them, memory and step bars carry the candidates' numbers, rejections are grouped.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <algorithm>
#include <set>

#include "markup.hpp"
#include "report/plan_charts.hpp"
#include "report/plan_report.hpp"

namespace moeplan::report {

namespace {

constexpr std::uint64_t kGib = 1ULL << 30;

Candidate candidate(std::int64_t dp, double per_gpu, double per_user, bool pareto) {
  Candidate made;
  made.layout.dp = dp;
  made.layout.ep = dp;
  made.serving.output_tokens_per_gpu = per_gpu;
  made.serving.tokens_per_user = per_user;
  made.serving.tpot = 1 / per_user;
  made.serving.ttft = 0.25;
  made.pareto = pareto;
  return made;
}

// Four layouts, best per GPU first as the search leaves them: the first, third and fourth are on the
// front (each serves more per user than all before it), the second is dominated by the first.
SearchResult four_layouts() {
  SearchResult result;
  result.evaluated = 9;
  result.aggregated = {candidate(8, 3000, 12, true), candidate(4, 2500, 11, false), candidate(2, 2000, 15, true),
                       candidate(1, 900, 21, true)};
  MemoryPlan& memory = result.aggregated[0].memory;
  memory.device_bytes = 141 * kGib;
  memory.usable_bytes = 124 * kGib;
  memory.weights[Component::routed_experts] = 3 * kGib;
  memory.weights[Component::attention_qkv] = kGib / 2;
  memory.overheads.activation = kGib;
  memory.kv_cache_bytes = 2 * kGib;
  StepBreakdown& step = result.aggregated[0].serving.decode;
  step = {0.010, 0.020, 0.005, 0, 0.001, 0.002, 0.004, 0.034};  // 38 ms of terms, 4 ms hidden by overlap
  for (int index = 0; index < 3; ++index)
    result.rejections.push_back({Layout{}, "aggregated", "memory", "weights exceed"});
  result.rejections.push_back({Layout{}, "aggregated", "slo.tpot", "TPOT 120 ms exceeds 100 ms"});
  result.rejected_by_reason = {{"memory", 3}, {"slo.tpot", 1}};
  return result;
}

Scenario scenario_with_slos() {
  Scenario scenario;
  scenario.name = "test";
  scenario.cluster.hardware.name = "H200";
  scenario.slo.tpot = 0.1;
  scenario.slo.ttft = 2.0;
  return scenario;
}

const Series& series_named(const XyChart& chart, const char* css_class) {
  const auto found = std::find_if(chart.series.begin(), chart.series.end(),
                                  [&](const Series& series) { return series.css_class == css_class; });
  REQUIRE(found != chart.series.end());
  return *found;
}

}  // namespace

TEST_CASE("the Pareto front holds exactly the candidates marked pareto, in order of throughput per user") {
  const SearchResult result = four_layouts();
  const XyChart chart =
      pareto_chart(result.aggregated, scenario_with_slos().slo, "aggregated", &result.aggregated.front());
  const Series& front = series_named(chart, "front");
  REQUIRE(front.data.size() == 3);
  CHECK(front.data[0].x == approx(12));
  CHECK(front.data[0].y == approx(3000));
  CHECK(front.data[1].x == approx(15));
  CHECK(front.data[2].x == approx(21));
  const Series& rest = series_named(chart, "candidates");
  REQUIRE(rest.data.size() == 1);
  CHECK(rest.data[0].y == approx(2500));
  // TPOT SLO 100 ms: no layout below 10 tokens/s per user qualifies.
  REQUIRE(chart.references.size() == 1);
  CHECK(chart.references[0].vertical);
  CHECK(chart.references[0].value == approx(10));
  REQUIRE(chart.callouts.size() == 1);
  CHECK(chart.callouts[0].datum.y == approx(3000));
}

TEST_CASE("the latency chart draws both SLOs in milliseconds") {
  const SearchResult result = four_layouts();
  const XyChart chart = latency_chart(result.aggregated, scenario_with_slos().slo, nullptr);
  REQUIRE(chart.references.size() == 2);
  CHECK(chart.references[0].value == approx(100));
  CHECK(chart.references[1].value == approx(2000));
  CHECK_FALSE(chart.references[1].vertical);
  CHECK(chart.callouts.empty());
}

TEST_CASE("memory bars show each held component, the overheads and the KV cache in GiB") {
  const SearchResult result = four_layouts();
  const StackedBarChart chart = memory_chart({{"#1", &result.aggregated[0], true}});
  // Only the two weight components the layout holds, then three overheads and the KV cache.
  REQUIRE(chart.segments.size() == 6);
  CHECK(chart.segments[0].label == "weights: attention_qkv");
  CHECK(chart.segments[1].label == "weights: routed_experts");
  CHECK(chart.segments[5].label == "KV cache");
  REQUIRE(chart.bars.size() == 1);
  const std::vector<double> expected = {0.5, 3, 1, 0, 0, 2};
  REQUIRE(chart.bars[0].values.size() == expected.size());
  for (std::size_t index = 0; index < expected.size(); ++index)
    CHECK(chart.bars[0].values[index] == approx(expected[index]));
  REQUIRE(chart.limits.size() == 2);
  CHECK(chart.limits[0].value == approx(141));
  CHECK(chart.limits[1].value == approx(124));
}

TEST_CASE("the step split is in milliseconds with the step after overlap as the marker") {
  const SearchResult result = four_layouts();
  const StackedBarChart chart =
      step_chart({{"#1", &result.aggregated[0], true}, {"#2", &result.aggregated[1], false}}, false);
  const std::vector<double> expected = {10, 20, 5, 0, 1, 2};
  for (std::size_t index = 0; index < expected.size(); ++index)
    CHECK(chart.bars[0].values[index] == approx(expected[index]));
  REQUIRE(chart.bars[0].marker.has_value());
  CHECK(*chart.bars[0].marker == approx(34));
  CHECK_FALSE(chart.bars[1].marker.has_value());  // an all-zero step has nothing hidden
}

TEST_CASE("rejections are grouped by reason, the most frequent first") {
  const StackedBarChart chart = rejection_chart(four_layouts());
  REQUIRE(chart.bars.size() == 2);
  CHECK(chart.bars[0].label == "memory");
  CHECK(chart.bars[0].values[0] == approx(3));
  CHECK(chart.bars[1].label == "slo.tpot");
}

TEST_CASE("the plan report is one well-formed page whose front points are the pareto candidates") {
  const SearchResult result = four_layouts();
  const Scenario scenario = scenario_with_slos();
  const std::string html = plan_report_html({"Test-MoE", scenario, result, 2});
  CHECK(testing::page_problems(html) == "");
  const testing::Markup markup = testing::read_markup(html);
  std::set<std::string> front;
  for (const auto& circle : testing::find(markup, "circle", "front")) front.insert(circle.attribute("data-label"));
  std::set<std::string> expected;
  for (const Candidate& candidate : result.aggregated) {
    if (candidate.pareto) expected.insert(candidate_label(candidate));
  }
  // Two charts draw the front: throughput and latency.
  CHECK(front == expected);
  CHECK(testing::find(markup, "circle", "front").size() == 2 * expected.size());
  // The table and the bars cover the top 2 only; the chosen row is highlighted.
  const auto highlighted = testing::find(markup, "tr");
  CHECK(std::count_if(highlighted.begin(), highlighted.end(),
                      [](const auto& row) { return row.has_class("highlighted"); }) == 1);
  const auto labels = testing::find(markup, "text");
  CHECK(std::count_if(labels.begin(), labels.end(), [](const auto& text) {
          return text.has_class("category-label") && text.text.rfind("#", 0) == 0;
        }) == 4);  // two layouts in the memory chart, two in the step chart
  CHECK(html.find("TPOT SLO 100 ms") != std::string::npos);
  CHECK(html.find("TTFT SLO 2000 ms") != std::string::npos);
  CHECK(html.find("#1 " + candidate_label(result.aggregated[0]) + ": KV cache 2.0 GiB") != std::string::npos);
  CHECK(html.find("weights exceed") != std::string::npos);
}

}  // namespace moeplan::report
