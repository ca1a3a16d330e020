#include "report/eplb_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/eplb_charts.hpp"
#include "report/heatmap.hpp"
#include "report/html_page.hpp"

namespace moeplan::report {

namespace {

// The colour scale spans at least half to twice the mean, so a balanced map reads pale rather than
// saturated, and at most a sixteenth to sixteen times, so one outlier does not wash out the rest.
constexpr double kLeastScaleTop = 2;
constexpr double kMostScaleTop = 16;

double largest(const std::vector<std::vector<double>>& loads) {
  double value = 0;
  for (const std::vector<double>& row : loads) {
    if (!row.empty()) value = std::max(value, *std::max_element(row.begin(), row.end()));
  }
  return value;
}

std::vector<std::pair<std::string, std::string>> facts(const EplbReportInput& input) {
  const eplb::DeploymentShape& shape = input.placement.shape;
  return {
      {"placement", fmt::format("{} policy against the {} placement", input.policy, input.baseline_name)},
      {"shape", fmt::format("{} nodes, {} GPUs ({} per node), {} slots per layer ({} per GPU), {} experts in {} groups",
                            shape.nodes, shape.gpus, shape.gpus_per_node(), shape.slots, shape.slots_per_gpu(),
                            shape.experts, shape.groups)},
      {"load log", fmt::format("{}: {} MoE layers, {} window{}", input.log.file, input.log.num_layers,
                               input.log.num_windows, input.log.num_windows == 1 ? "" : "s summed")},
      {"mean balancedness",
       fmt::format("{:.4f} before, {:.4f} after", input.before.mean_balancedness(), input.after.mean_balancedness())},
      {"worst max / bound", fmt::format("{:.4f} before, {:.4f} after", input.before.worst_max_over_bound(),
                                        input.after.worst_max_over_bound())},
      {"dispatches leaving the node",
       fmt::format("{:.1f}% before, {:.1f}% after", 100 * input.before.mean_cross_node_share(),
                   100 * input.after.mean_cross_node_share())}};
}

}  // namespace

std::string eplb_report_html(const EplbReportInput& input) {
  const eplb::DeploymentShape& shape = input.placement.shape;
  HtmlPage page("moeplan eplb-solve: " + input.policy + " placement",
                fmt::format("{} experts on {} slots over {} GPUs in {} nodes", shape.experts, shape.slots, shape.gpus,
                            shape.nodes));
  page.facts(facts(input));
  const auto before = relative_gpu_loads(input.log, input.baseline);
  const auto after = relative_gpu_loads(input.log, input.placement);
  const double high = std::clamp(std::max(largest(before), largest(after)), kLeastScaleTop, kMostScaleTop);
  page.section("GPU load per layer");
  page.figure(
      heatmap_svg(load_heatmap(before, "Before: " + input.baseline_name + " placement", high)),
      "Tokens each GPU receives in each MoE layer over the layer's mean per GPU, on a ratio scale: white is the "
      "mean, red an overloaded GPU that every other GPU waits for, blue an idle one.");
  page.figure(heatmap_svg(load_heatmap(after, "After: " + input.policy + " placement", high)),
              "The same after placement, on the same colour scale.");
  page.section("Balance against the bound");
  page.figure(
      xy_chart_svg(balancedness_chart(input.before, input.after)),
      "Balancedness ([doc-003]: mean over max tokens per GPU) per layer. No placement of this kind can rise above "
      "the dashed line, the mean over the lower bound on the busiest GPU's load.");
  page.figure(
      xy_chart_svg(hottest_replicas_chart(input.log, input.after)),
      "Replicas given to each layer's three hottest experts; hover a point for its share of the layer's tokens.");
  return page.finish();
}

}  // namespace moeplan::report
