#include "predict/run_report.hpp"

#include <fmt/format.h>

namespace moeplan::predict {

namespace {

std::string optional_cell(const std::optional<double>& value) {
  return value ? fmt::format("{:.4f}", *value) : std::string();
}

// A reason never breaks the CSV: commas and line breaks become spaces.
std::string csv_safe(std::string text) {
  for (char& character : text) {
    if (character == ',' || character == '\n' || character == '\r' || character == '"') character = ' ';
  }
  return text;
}

}  // namespace

std::string partition_key(const MeasuredRun& run) {
  return run.hf_id + " x " + run.system + " x " + run.engine + " x " + (run.disaggregated ? "disagg" : "agg");
}

std::string predictions_csv(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions) {
  std::string text =
      "id,predicted_ttft_ms,predicted_tpot_ms,ttft_band_percent,tpot_band_percent,measured_ttft_ms,"
      "measured_tpot_ms,reason\n";
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const MeasuredRun& run = runs[index];
    const RunPrediction& prediction = predictions[index];
    const bool predicted = prediction.ttft_ms.has_value();
    text += fmt::format("{},{},{},{},{},{},{},{}\n", csv_safe(run.id), optional_cell(prediction.ttft_ms),
                        optional_cell(prediction.tpot_ms),
                        predicted ? fmt::format("{:.1f}", prediction.ttft_band_percent) : "",
                        predicted ? fmt::format("{:.1f}", prediction.tpot_band_percent) : "",
                        optional_cell(run.ttft_ms), optional_cell(run.tpot_ms), csv_safe(prediction.reason));
  }
  return text;
}

ErrorTable error_table(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions) {
  ErrorTable table;
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const MeasuredRun& run = runs[index];
    const RunPrediction& prediction = predictions[index];
    if (!prediction.ttft_ms || !run.ttft_ms || !run.tpot_ms || *run.ttft_ms <= 0 || *run.tpot_ms <= 0) continue;
    table.add(partition_key(run), {*prediction.ttft_ms, *run.ttft_ms}, {*prediction.tpot_ms, *run.tpot_ms});
  }
  return table;
}

FitSet fit_samples(const std::vector<MeasuredRun>& runs, Predictor& predictor, const std::string& engine) {
  FitSet set;
  for (const MeasuredRun& run : runs) {
    if (run.engine != engine) continue;
    std::string reason;
    const std::optional<RunCosts> costs = predictor.costs(run, reason);
    if (costs && (!run.ttft_ms || !run.tpot_ms || *run.ttft_ms <= 0 || *run.tpot_ms <= 0)) reason = "no measurement";
    if (costs && reason.empty() && below_roofline(*costs, *run.tpot_ms / 1e3)) {
      reason = "measured TPOT below the roofline at 100 % of every ceiling";
    }
    if (!reason.empty()) {
      set.left_out.push_back(run.id + ": " + reason);
      continue;
    }
    set.samples.push_back({*costs, static_cast<double>(run.concurrency), static_cast<double>(run.input_tokens),
                           static_cast<double>(run.output_tokens), *run.ttft_ms / 1e3, *run.tpot_ms / 1e3, run.sweep});
  }
  return set;
}

}  // namespace moeplan::predict
