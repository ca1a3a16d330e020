#include "report/plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "report/html_page.hpp"
#include "report/plan_charts.hpp"

namespace moeplan::report {

namespace {

constexpr std::size_t kExamplesPerReason = 2;
constexpr double kTableBytesPerGib = 1024.0 * 1024.0 * 1024.0;

std::string milliseconds_text(double seconds) { return fmt::format("{:.1f}", seconds * 1e3); }
std::string gib_text(std::uint64_t bytes) {
  return fmt::format("{:.1f}", static_cast<double>(bytes) / kTableBytesPerGib);
}

std::vector<RankedLayout> aggregated_layouts(const SearchResult& result, std::size_t top) {
  std::vector<RankedLayout> layouts;
  for (std::size_t index = 0; index < std::min(top, result.aggregated.size()); ++index) {
    const Candidate& candidate = result.aggregated[index];
    layouts.push_back({fmt::format("#{} {}", index + 1, candidate_label(candidate)), &candidate, index == 0});
  }
  return layouts;
}

// The prefill or decode pool of each of the top disaggregated plans, each pool once: plans often share one.
std::vector<RankedLayout> pool_layouts(const SearchResult& result, std::size_t top, bool prefill) {
  std::vector<RankedLayout> layouts;
  std::set<std::string> shown;
  for (std::size_t index = 0; index < std::min(top, result.disaggregated.size()); ++index) {
    const Candidate& candidate = prefill ? result.disaggregated[index].prefill : result.disaggregated[index].decode;
    if (!shown.insert(candidate_label(candidate)).second) continue;
    layouts.push_back({fmt::format("#{} {} {}", index + 1, prefill ? "prefill" : "decode", candidate_label(candidate)),
                       &candidate, index == 0});
  }
  return layouts;
}

std::vector<std::pair<std::string, std::string>> facts(const PlanReportInput& input) {
  const Scenario& scenario = input.scenario;
  const Workload& workload = scenario.workload;
  const std::string offered = workload.request_rate
                                  ? fmt::format("{:.3g} requests/s", *workload.request_rate)
                                  : fmt::format("{} concurrent", workload.concurrency.value_or(workload.num_requests));
  std::string slo;
  if (scenario.slo.ttft) slo += "TTFT " + milliseconds_text(*scenario.slo.ttft) + " ms";
  if (scenario.slo.tpot)
    slo += (slo.empty() ? "" : ", ") + std::string("TPOT ") + milliseconds_text(*scenario.slo.tpot) + " ms";
  const SearchResult& result = input.result;
  const std::size_t kept = result.aggregated.size() + result.prefill.size() + result.decode.size();
  return {{"model", input.model_name},
          {"cluster", fmt::format("{} x {} {} ({} GPUs)", scenario.cluster.nodes, scenario.cluster.gpus_per_node,
                                  scenario.cluster.hardware.name, scenario.cluster.gpus())},
          {"workload", fmt::format("{}, {}", workload.lengths_label(), offered)},
          {"SLOs", slo.empty() ? "none" : slo},
          {"expert load", result.load_source.empty() ? "skew model (no load log)" : result.load_source},
          {"estimates", result.estimates},
          {"search", fmt::format("{} (layout, role) pairs evaluated, {} kept, {} rejected", result.evaluated, kept,
                                 result.rejections.size())}};
}

HtmlTable layouts_table(const std::vector<RankedLayout>& layouts) {
  HtmlTable table({"layout", "GPUs", "batch / DP rank", "bound by", "tok/s/GPU", "tok/s/user", "TTFT ms", "TPOT ms",
                   "weights GiB", "KV GiB"});
  for (std::size_t index = 0; index < layouts.size(); ++index) {
    const Candidate& candidate = *layouts[index].candidate;
    const ServingEstimate& serving = candidate.serving;
    table.rows.push_back({layouts[index].label, fmt::format("{}", candidate.layout.gpus()),
                          fmt::format("{}", serving.batch), serving.batch_limit,
                          fmt::format("{:.0f}", serving.output_tokens_per_gpu),
                          fmt::format("{:.1f}", serving.tokens_per_user), milliseconds_text(serving.ttft),
                          milliseconds_text(serving.tpot), gib_text(candidate.memory.weights.total()),
                          gib_text(candidate.memory.kv_cache_bytes)});
    if (layouts[index].chosen) table.highlighted_rows.push_back(index);
  }
  return table;
}

HtmlTable disaggregated_table(const SearchResult& result, std::size_t top) {
  HtmlTable table(
      {"#", "prefill layout", "prefill nodes", "decode layout", "decode nodes", "tok/s/GPU", "TTFT ms", "TPOT ms"});
  table.highlighted_rows = {0};
  for (std::size_t index = 0; index < std::min(top, result.disaggregated.size()); ++index) {
    const DisaggregatedPlan& plan = result.disaggregated[index];
    table.rows.push_back({fmt::format("{}", index + 1), candidate_label(plan.prefill),
                          fmt::format("{}", plan.prefill_nodes), candidate_label(plan.decode),
                          fmt::format("{}", plan.decode_nodes), fmt::format("{:.0f}", plan.output_tokens_per_gpu),
                          milliseconds_text(plan.prefill.serving.ttft), milliseconds_text(plan.decode.serving.tpot)});
  }
  return table;
}

HtmlTable rejection_table(const SearchResult& result) {
  HtmlTable table({"reason", "pairs", "for example"}, "rejections");
  for (const auto& [reason, count] : result.rejected_by_reason) {
    std::string examples;
    std::size_t shown = 0;
    for (const Rejection& rejection : result.rejections) {
      if (rejection.reason != reason || shown == kExamplesPerReason) continue;
      examples += fmt::format("{}{} ({}): {}", shown == 0 ? "" : "; ", layout_label(rejection.layout), rejection.role,
                              rejection.detail);
      ++shown;
    }
    table.rows.push_back({reason, fmt::format("{}", count), examples});
  }
  return table;
}

void add_aggregated(HtmlPage& page, const PlanReportInput& input) {
  const std::vector<Candidate>& candidates = input.result.aggregated;
  page.section("Aggregated serving: throughput against latency");
  page.figure(xy_chart_svg(pareto_chart(candidates, input.scenario.slo, "aggregated", &candidates.front())),
              "Every feasible layout at its best dispatch setting. A layout is on the front when no other serves more "
              "tokens per GPU and more per user; the chosen plan serves the most per GPU within the SLOs.");
  page.figure(xy_chart_svg(latency_chart(candidates, input.scenario.slo, &candidates.front())),
              "Time to first token against time per output token: every layout shown meets the SLO lines, "
              "since the search rejects the others (see the rejections below).");
  const std::vector<RankedLayout> top = aggregated_layouts(input.result, input.top);
  page.section("The top aggregated layouts");
  page.table(layouts_table(top));
  page.figure(stacked_bar_svg(memory_chart(top)),
              "What each rank holds: weights by component, the activation, CUDA-graph and communication reserves, "
              "and the KV cache that fills the rest of the usable memory.");
  page.figure(stacked_bar_svg(step_chart(top, false)),
              "One decode step at the layout's batch, summed over all layers; where two-batch or shared-expert "
              "overlap hides part of it, a black tick marks the step that remains.");
}

void add_disaggregated(HtmlPage& page, const PlanReportInput& input) {
  const SearchResult& result = input.result;
  page.section("Prefill/decode disaggregation");
  page.table(disaggregated_table(result, input.top));
  page.figure(xy_chart_svg(
                  pareto_chart(result.decode, input.scenario.slo, "decode pool", &result.disaggregated.front().decode)),
              "Every feasible decode pool; the chosen plan's decode pool is called out.");
  std::vector<RankedLayout> pools = pool_layouts(result, input.top, true);
  const std::vector<RankedLayout> decode = pool_layouts(result, input.top, false);
  page.figure(stacked_bar_svg(step_chart(pools, true)), "One prefill chunk per DP rank, summed over all layers.");
  page.figure(stacked_bar_svg(step_chart(decode, false)),
              "One decode step at the pool's batch, summed over all layers.");
  pools.insert(pools.end(), decode.begin(), decode.end());
  page.figure(stacked_bar_svg(memory_chart(pools)), "Memory per rank of both pools of the top plans.");
}

}  // namespace

std::string plan_report_html(const PlanReportInput& input) {
  const Scenario& scenario = input.scenario;
  HtmlPage page("moeplan plan-deploy: " + input.model_name,
                fmt::format("scenario {} on {} x {} {}", scenario.name, scenario.cluster.nodes,
                            scenario.cluster.gpus_per_node, scenario.cluster.hardware.name));
  page.facts(facts(input));
  if (!input.result.aggregated.empty()) add_aggregated(page, input);
  if (!input.result.disaggregated.empty()) add_disaggregated(page, input);
  if (input.result.aggregated.empty() && input.result.disaggregated.empty()) {
    page.paragraph("No layout is feasible: every (layout, role) pair was rejected for one of the reasons below.");
  }
  page.section("Rejected layouts");
  if (input.result.rejected_by_reason.empty()) {
    page.paragraph("No layout was rejected.");
  } else {
    page.figure(stacked_bar_svg(rejection_chart(input.result)),
                "How many (layout, role) pairs each rule rejected: layout.* are divisibility and engine rules, memory "
                "means weights and reserves leave no room for the KV cache, slo.* a latency target missed.");
    page.table(rejection_table(input.result));
  }
  return page.finish();
}

}  // namespace moeplan::report
