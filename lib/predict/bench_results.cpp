#include "predict/bench_results.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "io/input_file.hpp"
#include "io/json_fields.hpp"

namespace moeplan::predict {

namespace {

// The JSON documents of a file: one object, or one per non-empty line.
std::vector<nlohmann::json> documents(const std::string& file) {
  std::ifstream input = open_input_file(file, kLargestMeasurementFile);
  std::stringstream whole;
  whole << input.rdbuf();
  // A key written twice is refused (the last would win silently), here and on every line.
  nlohmann::json single = nlohmann::json::parse(whole.str(), refuse_duplicate_keys(file), false);
  if (!single.is_discarded() && single.is_object()) return {single};
  std::vector<nlohmann::json> lines;
  std::istringstream text(whole.str());
  std::string line;
  for (std::int64_t number = 1; std::getline(text, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json document =
        nlohmann::json::parse(line, refuse_duplicate_keys(file + " line " + std::to_string(number)), false);
    if (document.is_discarded() || !document.is_object()) {
      throw InputError(file, "line " + std::to_string(number),
                       "one JSON object per line (bench_serving --output-file)");
    }
    lines.push_back(std::move(document));
  }
  return lines;
}

std::string sweep_of(const BenchDeployment& deployment) {
  const WorkerShape& w = deployment.worker;
  return deployment.engine + "|" + deployment.engine_version + "|" + deployment.hf_id + "|" + deployment.system + "|" +
         std::to_string(w.tp) + "x" + std::to_string(w.attention_dp) + "x" + std::to_string(w.moe_ep);
}

MeasuredRun run_from(const JsonFields& fields, const BenchDeployment& deployment, const std::string& id) {
  MeasuredRun run;
  run.id = id;
  run.engine = deployment.engine;
  run.engine_version = deployment.engine_version;
  run.hf_id = deployment.hf_id;
  run.system = deployment.system;
  run.worker = deployment.worker;
  const double completed = static_cast<double>(fields.integer("completed", 1));
  // At most 2^31 tokens a request, as the runs CSV takes: past it llround has no result (1e308 was dropped).
  const double most_tokens = completed * static_cast<double>(std::int64_t{1} << 31);
  run.input_tokens = std::llround(fields.number("total_input_tokens", 0, most_tokens) / completed);
  run.output_tokens = std::llround(fields.number("total_output_tokens", 0, most_tokens) / completed);
  if (!fields.has("max_concurrency") || fields.is_null("max_concurrency")) {
    fields.fail("max_concurrency", "a closed-loop run (--max-concurrency); a request rate alone is an open loop");
  }
  run.concurrency = fields.integer("max_concurrency", 1, 1 << 24);
  run.ttft_ms = fields.number("mean_ttft_ms", kShortestMeasuredMilliseconds, kLongestMeasuredMilliseconds);
  run.tpot_ms = fields.number("mean_tpot_ms", kShortestMeasuredMilliseconds, kLongestMeasuredMilliseconds);
  run.sweep = sweep_of(deployment) + "|" + std::to_string(run.input_tokens) + "x" + std::to_string(run.output_tokens);
  return run;
}

}  // namespace

std::vector<MeasuredRun> read_bench_results(const std::string& file, const BenchDeployment& deployment) {
  std::vector<MeasuredRun> runs;
  const std::vector<nlohmann::json> summaries = documents(file);
  for (std::size_t index = 0; index < summaries.size(); ++index) {
    const std::string place = summaries.size() == 1 ? "" : "line " + std::to_string(index + 1);
    const JsonFields fields(summaries[index], file, place);
    runs.push_back(run_from(fields, deployment, file + "#" + std::to_string(index + 1)));
  }
  if (runs.empty()) throw InputError(file, "", "at least one benchmark summary");
  return runs;
}

}  // namespace moeplan::predict
