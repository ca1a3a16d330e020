#pragma once
// The choice a planner exists to make: among measured runs that share everything but the layout
// (model, formats, GPU type and count, engine and version, mode, lengths and concurrency), does the
// layout predicted to serve the most output tokens per second per GPU measure the most?
#include <cstdint>
#include <string>
#include <vector>

#include "predict/measured_runs.hpp"
#include "predict/predictor.hpp"

namespace moeplan::predict {

// Output tokens per second per GPU of a closed loop of `concurrency` requests of `output_tokens`
// tokens each: every request lives TTFT + (osl - 1) x TPOT and yields osl tokens, so
// concurrency x osl / (TTFT + (osl - 1) x TPOT) / GPUs. Times in ms.
double output_tokens_per_second_per_gpu(double ttft_ms, double tpot_ms, double concurrency, double output_tokens,
                                        double gpus);

// GPUs a run occupies: the worker's, or every prefill and decode worker's.
std::int64_t run_gpus(const MeasuredRun& run);

// Everything of a run but its layout: the key its layout alternatives share.
std::string layout_choice_key(const MeasuredRun& run);

// A deployment's layout alternatives: the choice key without the concurrency (all loads of every layout
// of one model, formats, GPU type and count, engine and version, mode and lengths).
std::string layout_alternatives_key(const MeasuredRun& run);

// The run's layout: the worker's shape, or the prefill and decode workers' shapes and counts.
std::string layout_label_of(const MeasuredRun& run);

// One layout of a group: its runs' mean measured and predicted throughput (tokens/s per GPU).
struct LayoutOption {
  std::string layout;
  double measured = 0;
  double predicted = 0;
  std::int64_t runs = 0;
};

struct LayoutChoiceGroup {
  std::string key;
  std::vector<LayoutOption> options;  // sorted by layout label
  std::size_t measured_best = 0;      // index into options
  std::size_t predicted_best = 0;
  double lead_percent = 0;  // the measured best over the measured second best, - 1, in percent
  double lost_percent = 0;  // 1 - measured(predicted best) / measured(best), in percent

  bool right() const { return measured_best == predicted_best; }
};

struct LayoutChoiceReport {
  std::vector<LayoutChoiceGroup> groups;
  std::int64_t right = 0;
  std::int64_t decisive = 0;  // groups whose measured winner leads by more than kDecisiveLeadPercent
  std::int64_t decisive_right = 0;
  double mean_lost_percent = 0;
  double worst_lost_percent = 0;
};

inline constexpr double kDecisiveLeadPercent = 10.0;

// Groups of `runs` (shape [R], `predictions` parallel) with two or more layouts that are predicted and
// measured (runs whose measurement beats the roofline left out); repeats of one layout are averaged.
LayoutChoiceReport layout_choice(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions);

}  // namespace moeplan::predict
