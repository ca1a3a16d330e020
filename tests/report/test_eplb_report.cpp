// The eplb-solve report: relative GPU loads worked out by hand, the ratio colour scale, the
// balancedness bound, and the heatmap cells on the page.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "markup.hpp"
#include "report/eplb_charts.hpp"
#include "report/eplb_report.hpp"

namespace moeplan::report {

namespace {

// One MoE layer of four experts on two GPUs of one node, two slots each.
struct SmallCase {
  eplb::LoadLog log{"loads.json", 1, 1, 4, 1, {60, 20, 10, 10}};
  eplb::DeploymentShape shape{1, 2, 4, 4, 1};
  eplb::Placement trivial{shape, {{0, 1, 2, 3}}};  // GPU 0: 60 + 20, GPU 1: 10 + 10
  eplb::Placement placed{shape, {{0, 3, 1, 2}}};   // GPU 0: 60 + 10, GPU 1: 20 + 10
  eplb::PlacementEvaluation before{{{80, 50.0 / 80, 60, 80.0 / 60, 0, 1, {0, 1, 2}, {1, 1, 1}}}};
  eplb::PlacementEvaluation after{{{70, 50.0 / 70, 60, 70.0 / 60, 0, 1, {0, 1, 2}, {1, 1, 1}}}};
};

}  // namespace

TEST_CASE("GPU loads are shown relative to the layer's mean per GPU") {
  const SmallCase small;
  const auto before = relative_gpu_loads(small.log, small.trivial);
  REQUIRE(before.size() == 1);
  REQUIRE(before[0].size() == 2);
  CHECK(before[0][0] == approx(1.6));  // 80 of a mean of 50
  CHECK(before[0][1] == approx(0.4));
  const auto after = relative_gpu_loads(small.log, small.placed);
  CHECK(after[0][0] == approx(1.4));
  CHECK(after[0][1] == approx(0.6));
}

TEST_CASE("the colour scale is white at the mean and spaced by ratio") {
  const Heatmap heatmap = load_heatmap({{1.0, 4.0, 0.25}}, "test", 4);
  CHECK(heatmap.low == approx(0.25));
  CHECK(heatmap_colour(heatmap, 1) == "#f7f7f7");
  CHECK(heatmap_colour(heatmap, 4) == "#b2182b");
  CHECK(heatmap_colour(heatmap, 0) == "#2166ac");  // an idle GPU clamps to the cold end
  // Twice the mean is half way from white to red on a 1/4..4 ratio scale: (247 + 178) / 2 = 212.5 -> d5, ...
  CHECK(heatmap_colour(heatmap, 2) == "#d58891");
}

TEST_CASE("balancedness is drawn before and after, under the bound mean / lower bound") {
  const SmallCase small;
  const XyChart chart = balancedness_chart(small.before, small.after);
  REQUIRE(chart.series.size() == 3);
  CHECK(chart.series[0].css_class == "before");
  CHECK(chart.series[0].data[0].y == approx(0.625));
  CHECK(chart.series[1].data[0].y == approx(50.0 / 70));
  CHECK(chart.series[2].css_class == "bound");
  CHECK(chart.series[2].data[0].y == approx(50.0 / 60));
}

TEST_CASE("the eplb report shows every cell of both heatmaps on a well-formed page") {
  const SmallCase small;
  const std::string html =
      eplb_report_html({"hierarchical", "trivial", small.log, small.placed, small.trivial, small.after, small.before});
  CHECK(testing::page_problems(html) == "");
  const auto markup = testing::read_markup(html);
  CHECK(testing::find(markup, "rect", "cells").size() == 4);  // 1 layer x 2 GPUs, before and after
  CHECK(testing::find(markup, "circle", "hottest-1").size() == 1);
  CHECK(html.find("layer 0 expert 0: 60.00% of the layer&#39;s tokens, 1 replicas") != std::string::npos);
  CHECK(html.find("0.6250 before, 0.7143 after") != std::string::npos);
}

}  // namespace moeplan::report
