#pragma once
// The charts of the plan-deploy report, as chart specifications built from a search result: the
// Pareto front, latency against the SLOs, memory per rank, the step-time split and the rejections.
#include <string>
#include <vector>

#include "plan/search.hpp"
#include "report/stacked_bar_chart.hpp"
#include "report/xy_chart.hpp"

namespace moeplan::report {

// A feasible layout as the report shows it: its rank label, and whether it is the chosen plan.
struct RankedLayout {
  std::string label;  // "#1 tp1·dp8·ep8 deepep_low_latency+tbo"
  const Candidate* candidate = nullptr;
  bool chosen = false;
};

// "tp1·dp8·ep8 all_to_all+tbo": the layout and the dispatch setting the search kept for it.
std::string candidate_label(const Candidate& candidate);

// Output tokens/s per GPU against tokens/s per user; the front joined, the chosen layout called out, the
// TPOT SLO as the least tokens/s per user it allows.
// `chosen`: the layout to call out, or null.
XyChart pareto_chart(const std::vector<Candidate>& candidates, const Slo& slo, const std::string& pool,
                     const Candidate* chosen);

// TTFT against TPOT with both SLO lines (aggregated candidates: each serves both phases).
XyChart latency_chart(const std::vector<Candidate>& candidates, const Slo& slo, const Candidate* chosen);

// Weights by component, the overhead terms and the KV cache per rank, in GiB, against device memory.
StackedBarChart memory_chart(const std::vector<RankedLayout>& layouts);

// Attention, MoE compute, dispatch/combine, OTP and TP communication and the rest, in ms per step;
// the marker is the step after overlap. `prefill`: the prefill step, otherwise the decode step.
StackedBarChart step_chart(const std::vector<RankedLayout>& layouts, bool prefill);

// Rejected (layout, role) pairs per reason, most frequent first.
StackedBarChart rejection_chart(const SearchResult& result);

}  // namespace moeplan::report
