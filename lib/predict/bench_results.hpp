#pragma once
// Benchmark result files users already have, as measured runs: SGLang's `bench_serving --output-file`
// (one JSON summary per line) and vLLM's `bench serve --save-result` (one JSON summary). A result does
// not say where it ran, so the deployment comes beside it (model id, GPU system, layout).
#include <string>
#include <vector>

#include "predict/measured_runs.hpp"

namespace moeplan::predict {

struct BenchDeployment {
  std::string engine;  // sglang, vllm
  std::string engine_version;
  std::string hf_id;
  std::string system;  // as in the runs CSV: h200_sxm, b200_sxm, ...
  WorkerShape worker;
};

// Every summary in `file`: mean prompt and output lengths from the totals over completed requests,
// the concurrency from max_concurrency (a run at a request rate alone is not a closed loop and is
// refused), the measured mean TTFT and TPOT. Errors name the file, the line and the key.
std::vector<MeasuredRun> read_bench_results(const std::string& file, const BenchDeployment& deployment);

}  // namespace moeplan::predict
