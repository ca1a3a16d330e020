#include "predict/layout_choice.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace moeplan::predict {

namespace {

std::string shape_text(const WorkerShape& shape) {
  return fmt::format("tp{} dp{} pp{} moe_tp{} ep{}", shape.tp, shape.attention_dp, shape.pp, shape.moe_tp,
                     shape.moe_ep);
}

bool usable(const MeasuredRun& run, const RunPrediction& prediction) {
  return !prediction.implausible && prediction.ttft_ms && prediction.tpot_ms && run.ttft_ms && run.tpot_ms &&
         *run.ttft_ms > 0 && *run.tpot_ms > 0 && run.concurrency > 0 && run.output_tokens > 0;
}

// Sums of throughput per layout, shape [layouts], before the means are taken.
using LayoutSums = std::map<std::string, LayoutOption>;

void add_run(LayoutSums& sums, const MeasuredRun& run, const RunPrediction& prediction) {
  const double concurrency = static_cast<double>(run.concurrency);
  const double output = static_cast<double>(run.output_tokens);
  const double gpus = static_cast<double>(run_gpus(run));
  LayoutOption& option = sums[layout_label_of(run)];
  option.layout = layout_label_of(run);
  option.measured += output_tokens_per_second_per_gpu(*run.ttft_ms, *run.tpot_ms, concurrency, output, gpus);
  option.predicted +=
      output_tokens_per_second_per_gpu(*prediction.ttft_ms, *prediction.tpot_ms, concurrency, output, gpus);
  option.runs += 1;
}

std::size_t best_by(const std::vector<LayoutOption>& options, double LayoutOption::*value) {
  std::size_t best = 0;
  for (std::size_t index = 1; index < options.size(); ++index) {
    if (options[index].*value > options[best].*value) best = index;
  }
  return best;
}

LayoutChoiceGroup scored_group(const std::string& key, const LayoutSums& sums) {
  LayoutChoiceGroup group;
  group.key = key;
  for (const auto& [layout, sum] : sums) {
    LayoutOption option = sum;
    option.measured /= static_cast<double>(sum.runs);
    option.predicted /= static_cast<double>(sum.runs);
    group.options.push_back(option);
  }
  group.measured_best = best_by(group.options, &LayoutOption::measured);
  group.predicted_best = best_by(group.options, &LayoutOption::predicted);
  const double best = group.options[group.measured_best].measured;
  double second = 0;
  for (std::size_t index = 0; index < group.options.size(); ++index) {
    if (index != group.measured_best) second = std::max(second, group.options[index].measured);
  }
  group.lead_percent = (best / second - 1.0) * 100.0;
  group.lost_percent = (1.0 - group.options[group.predicted_best].measured / best) * 100.0;
  return group;
}

void tally(LayoutChoiceReport& report) {
  double lost = 0;
  for (const LayoutChoiceGroup& group : report.groups) {
    const bool decisive = group.lead_percent > kDecisiveLeadPercent;
    report.right += group.right() ? 1 : 0;
    report.decisive += decisive ? 1 : 0;
    report.decisive_right += decisive && group.right() ? 1 : 0;
    lost += group.lost_percent;
    report.worst_lost_percent = std::max(report.worst_lost_percent, group.lost_percent);
  }
  if (!report.groups.empty()) report.mean_lost_percent = lost / static_cast<double>(report.groups.size());
}

}  // namespace

double output_tokens_per_second_per_gpu(double ttft_ms, double tpot_ms, double concurrency, double output_tokens,
                                        double gpus) {
  const double lifetime_seconds = (ttft_ms + (output_tokens - 1.0) * tpot_ms) / 1e3;
  return concurrency * output_tokens / lifetime_seconds / gpus;
}

std::int64_t run_gpus(const MeasuredRun& run) {
  if (!run.disaggregated) return run.worker.gpus();
  return run.prefill.gpus() * run.prefill.workers + run.decode.gpus() * run.decode.workers;
}

std::string layout_choice_key(const MeasuredRun& run) {
  return layout_alternatives_key(run) + " c" + std::to_string(run.concurrency);
}

std::string layout_alternatives_key(const MeasuredRun& run) {
  return run.hf_id + " " + run.gemm_format + "/" + run.moe_format + " " + run.system + " x" +
         std::to_string(run_gpus(run)) + " " + run.engine + " " + run.engine_version + " " +
         (run.disaggregated ? "disagg" : "agg") + " " + std::to_string(run.input_tokens) + "/" +
         std::to_string(run.output_tokens);
}

std::string layout_label_of(const MeasuredRun& run) {
  if (!run.disaggregated) return shape_text(run.worker);
  return fmt::format("P{}x({}) D{}x({})", run.prefill.workers, shape_text(run.prefill), run.decode.workers,
                     shape_text(run.decode));
}

LayoutChoiceReport layout_choice(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions) {
  std::map<std::string, LayoutSums> sums;
  for (std::size_t index = 0; index < runs.size(); ++index) {
    if (usable(runs[index], predictions[index]))
      add_run(sums[layout_choice_key(runs[index])], runs[index], predictions[index]);
  }
  LayoutChoiceReport report;
  for (const auto& [key, layouts] : sums) {
    if (layouts.size() >= 2) report.groups.push_back(scored_group(key, layouts));
  }
  tally(report);
  return report;
}

}  // namespace moeplan::predict
