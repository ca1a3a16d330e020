#include "report/plan_charts.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/palette.hpp"

namespace moeplan::report {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
constexpr double kMillisecondsPerSecond = 1e3;

// Weights in blues, greens and purples by kind, overheads in greys, the KV cache in orange.
constexpr const char* kComponentColours[] = {"#08519c", "#3182bd", "#6baed6", "#006d2c", "#31a354",
                                             "#74c476", "#756bb1", "#9e9ac8", "#bcbddc"};
constexpr const char* kOverheadColours[] = {"#636363", "#969696", "#bdbdbd"};
constexpr const char* kKvColour = "#E69F00";

double gib(std::uint64_t bytes) { return static_cast<double>(bytes) / kBytesPerGib; }

std::string serving_detail(const ServingEstimate& serving) {
  return fmt::format("{:.0f} tok/s/GPU, {:.1f} tok/s/user, TTFT {:.0f} ms, TPOT {:.1f} ms, batch {} per DP rank",
                     serving.output_tokens_per_gpu, serving.tokens_per_user, serving.ttft * kMillisecondsPerSecond,
                     serving.tpot * kMillisecondsPerSecond, serving.batch);
}

Datum throughput_datum(const Candidate& candidate) {
  return {candidate.serving.tokens_per_user, candidate.serving.output_tokens_per_gpu, candidate_label(candidate),
          serving_detail(candidate.serving)};
}

Datum latency_datum(const Candidate& candidate) {
  return {candidate.serving.tpot * kMillisecondsPerSecond, candidate.serving.ttft * kMillisecondsPerSecond,
          candidate_label(candidate), serving_detail(candidate.serving)};
}

// The candidates off the front in grey, those on it coloured; `join` draws the front as a line.
std::vector<Series> front_and_rest(const std::vector<Candidate>& candidates, Datum (*to_datum)(const Candidate&),
                                   bool join) {
  Series rest = point_series("feasible layouts", kMutedColour, "candidates", 3);
  Series front = point_series("Pareto front", category_colour(0), "front");
  front.line = join;
  std::vector<const Candidate*> on_front;
  for (const Candidate& candidate : candidates) {
    if (candidate.pareto) {
      on_front.push_back(&candidate);
    } else {
      rest.data.push_back(to_datum(candidate));
    }
  }
  std::sort(on_front.begin(), on_front.end(), [](const Candidate* left, const Candidate* right) {
    return left->serving.tokens_per_user < right->serving.tokens_per_user;
  });
  for (const Candidate* candidate : on_front) front.data.push_back(to_datum(*candidate));
  return {rest, front};
}

std::vector<Callout> chosen_callout(const Candidate* chosen, Datum (*to_datum)(const Candidate&)) {
  if (chosen == nullptr) return {};
  return {{to_datum(*chosen), "chosen: " + candidate_label(*chosen), kHighlightColour}};
}

double step_total_before_overlap(const StepBreakdown& step) {
  return step.attention + step.moe_compute + step.dispatch_combine + step.otp_comm + step.tp_comm + step.other;
}

}  // namespace

std::string candidate_label(const Candidate& candidate) {
  const RoleOptions& options = candidate.serving.options;
  return fmt::format("{} {}{}{}", layout_label(candidate.layout), dispatch_mode_name(options.dispatch),
                     options.two_batch_overlap ? "+tbo" : "", options.speculative ? "+spec" : "");
}

XyChart pareto_chart(const std::vector<Candidate>& candidates, const Slo& slo, const std::string& pool,
                     const Candidate* chosen) {
  XyChart chart = titled_chart(fmt::format("Throughput per GPU against throughput per user ({})", pool),
                               "output tokens/s per user (1 / TPOT)", "output tokens/s per GPU");
  chart.series = front_and_rest(candidates, throughput_datum, true);
  if (slo.tpot) {
    chart.references.push_back(
        {true, 1 / *slo.tpot, fmt::format("TPOT SLO {:.0f} ms", *slo.tpot * kMillisecondsPerSecond), kLimitColour});
  }
  chart.callouts = chosen_callout(chosen, throughput_datum);
  return chart;
}

XyChart latency_chart(const std::vector<Candidate>& candidates, const Slo& slo, const Candidate* chosen) {
  XyChart chart = titled_chart("Latency against the SLOs", "TPOT (ms per output token)", "TTFT (ms)");
  chart.series = front_and_rest(candidates, latency_datum, false);
  if (slo.tpot) {
    const double tpot = *slo.tpot * kMillisecondsPerSecond;
    chart.references.push_back({true, tpot, fmt::format("TPOT SLO {:.0f} ms", tpot), kLimitColour});
  }
  if (slo.ttft) {
    const double ttft = *slo.ttft * kMillisecondsPerSecond;
    chart.references.push_back({false, ttft, fmt::format("TTFT SLO {:.0f} ms", ttft), kLimitColour});
  }
  chart.callouts = chosen_callout(chosen, latency_datum);
  return chart;
}

StackedBarChart memory_chart(const std::vector<RankedLayout>& layouts) {
  StackedBarChart chart = titled_bar_chart("Memory per rank", "GiB per rank (GiB = 2^30 bytes)", " GiB", 1);
  // A weight component no layout holds is left out of the legend.
  std::vector<Component> shown;
  for (const Component component : kAllComponents) {
    const bool held = std::any_of(layouts.begin(), layouts.end(), [&](const RankedLayout& layout) {
      return layout.candidate->memory.weights[component] > 0;
    });
    if (held) shown.push_back(component);
  }
  for (const Component component : shown) {
    chart.segments.push_back(
        {"weights: " + component_name(component), kComponentColours[static_cast<std::size_t>(component)]});
  }
  const char* const overheads[] = {"activation", "cuda_graph", "communication"};
  for (std::size_t index = 0; index < std::size(overheads); ++index) {
    chart.segments.push_back({std::string("overhead: ") + overheads[index], kOverheadColours[index]});
  }
  chart.segments.push_back({"KV cache", kKvColour});
  for (const RankedLayout& layout : layouts) {
    const MemoryPlan& memory = layout.candidate->memory;
    StackedBar bar{layout.label, {}, std::nullopt, layout.chosen};
    for (const Component component : shown) bar.values.push_back(gib(memory.weights[component]));
    for (const std::uint64_t overhead :
         {memory.overheads.activation, memory.overheads.cuda_graph, memory.overheads.communication}) {
      bar.values.push_back(gib(overhead));
    }
    bar.values.push_back(gib(memory.kv_cache_bytes));
    chart.bars.push_back(std::move(bar));
  }
  if (!layouts.empty()) {
    const MemoryPlan& memory = layouts.front().candidate->memory;
    const double device = gib(memory.device_bytes);
    const double usable = gib(memory.usable_bytes);
    chart.limits.push_back({true, device, fmt::format("device {:.0f} GiB", device), kLimitColour});
    chart.limits.push_back({true, usable, fmt::format("usable {:.0f}", usable), kAxisColour});
  }
  return chart;
}

StackedBarChart step_chart(const std::vector<RankedLayout>& layouts, bool prefill) {
  StackedBarChart chart =
      titled_bar_chart(prefill ? "Prefill step split" : "Decode step split", "ms per step, all layers", " ms", 2);
  chart.marker_label = "step after overlap";
  const char* const names[] = {"attention", "MoE compute", "dispatch/combine", "OTP comm", "TP comm", "other"};
  for (std::size_t index = 0; index < std::size(names); ++index)
    chart.segments.push_back({names[index], category_colour(index)});
  for (const RankedLayout& layout : layouts) {
    const StepBreakdown& step = prefill ? layout.candidate->serving.prefill : layout.candidate->serving.decode;
    StackedBar bar{layout.label, {}, std::nullopt, layout.chosen};
    for (const double seconds :
         {step.attention, step.moe_compute, step.dispatch_combine, step.otp_comm, step.tp_comm, step.other}) {
      bar.values.push_back(seconds * kMillisecondsPerSecond);
    }
    // Without overlap the stack already is the step; a marker there would only repeat its end.
    if (step.total < step_total_before_overlap(step) * (1 - 1e-9)) bar.marker = step.total * kMillisecondsPerSecond;
    chart.bars.push_back(std::move(bar));
  }
  return chart;
}

StackedBarChart rejection_chart(const SearchResult& result) {
  StackedBarChart chart = titled_bar_chart("Rejected (layout, role) pairs by reason", "pairs rejected", "", 0);
  chart.segments.push_back({"rejected", kMutedColour});
  std::vector<std::pair<std::string, std::int64_t>> reasons(result.rejected_by_reason.begin(),
                                                            result.rejected_by_reason.end());
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& left, const auto& right) { return left.second > right.second; });
  for (const auto& [reason, count] : reasons)
    chart.bars.push_back({reason, {static_cast<double>(count)}, std::nullopt, false});
  return chart;
}

}  // namespace moeplan::report
