#pragma once
// End-to-end serving runs measured on real servers, one row each, in the column layout of the shared
// measured-runs file ([aiconfigurator-silicon]): the engine, model, GPU, layout, fixed lengths, the
// concurrency the benchmark held, and the mean TTFT and TPOT it reported.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cost/moe_dispatch.hpp"

namespace moeplan::predict {

// A measured TTFT or TPOT is a real time: from a microsecond to about a day. A zero, a denormal or 1e308 is
// a broken record, and a fit on it would not be physical; the readers refuse it, naming its key.
constexpr double kShortestMeasuredMilliseconds = 1e-3;
constexpr double kLongestMeasuredMilliseconds = 1e8;

// One worker's parallel shape as the row records it; `batch` is sequences per attention-DP rank.
struct WorkerShape {
  std::int64_t tp = 1;
  std::int64_t pp = 1;
  std::int64_t attention_dp = 1;
  std::int64_t moe_tp = 1;
  std::int64_t moe_ep = 1;
  std::int64_t batch = 0;
  std::int64_t workers = 1;

  std::int64_t gpus() const { return tp * attention_dp * pp; }
};

struct MeasuredRun {
  std::string id;
  std::int64_t line = 0;  // 1-based line in its file, for messages
  std::string engine;     // sglang, vllm, trtllm
  std::string engine_version;
  std::string hf_id;   // model_path
  std::string system;  // h100_sxm, h200_sxm, b200_sxm, ...
  bool disaggregated = false;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::string gemm_format;       // gemm_quant_mode; empty means bf16
  std::string moe_format;        // moe_quant_mode
  std::int64_t concurrency = 0;  // requests the closed loop kept in flight
  WorkerShape worker;            // aggregated rows
  WorkerShape prefill, decode;   // disaggregated rows
  std::optional<double> ttft_ms, tpot_ms;
  std::string sweep;  // the deployment this row belongs to, at all its concurrencies
  // A plan's choices, which a measured row does not record (run_costs prices a row without them as the
  // engines do by default): the experts' token exchange and two-batch overlap.
  std::optional<DispatchMode> dispatch;
  bool two_batch_overlap = false;
  // Speculative decoding, from optional columns: `speculative` ("mtp:N" or "mtp", "none" or empty),
  // `draft_tokens` (N when the method gives none), `acceptance` (per drafted token, 0-1) or
  // `accepted_tokens` (measured mean accepted per step). draft_tokens 0: none.
  std::int64_t draft_tokens = 0;
  double acceptance = 0;
  double accepted_tokens = 0;
};

// The deployment a run measured, without the engine and its version: model, GPU, lengths, formats
// and worker shapes (the load and the measurements left out).
std::string deployment_without_engine(const MeasuredRun& run);

// Reads a measured-runs CSV. A missing column, a non-numeric size or time, or a repeated id is an
// InputError naming the file and "line N: column".
std::vector<MeasuredRun> read_measured_runs(const std::string& file);

// Splits one CSV line into cells (RFC 4180 quoting: "a,b" and "" inside quotes).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace moeplan::predict
