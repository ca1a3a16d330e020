// Dollars per million tokens against the one cost [doc-003] publishes: $0.20 per million output tokens for its
// 96-H100 deployment (12 nodes of 8), which serves 22.3k output tokens/s per node.
//
// The price per H100-hour that figure implies, by hand from the document's two numbers: one node generates
// 22,300 x 3,600 = 80.28 million output tokens an hour; at $0.20 a million that is $16.056 a node-hour, or
// 16.056 / 8 = $2.007 per H100-hour. The document charges the whole GPU-hour to output tokens at the
// decode nodes' rate (its prefill nodes' input tokens are not charged apart), as plan/token_cost.hpp does.
#include <cstdint>

#include "plan/token_cost.hpp"
#include "spec/scenario.hpp"
#include "validation_case.hpp"

namespace moeplan::validation {

namespace {

constexpr double kOutputPerNode = 22300;   // [doc-003]: output tokens/s per node of 8 H100
constexpr double kPublishedCost = 0.20;    // [doc-003]: US dollars per million output tokens
constexpr double kImpliedGpuHour = 2.007;  // by hand above: 0.20 x 22,300 x 3,600 / 1e6 / 8
constexpr double kRoundGpuHour = 2.00;     // the round rate the document's two-digit $0.20 stands for
constexpr std::int64_t kNodes = 12;
constexpr std::int64_t kGpusPerNode = 8;

// [doc-003]'s workload: 2000-token prompts; the output length does not change a cost per output token.
Workload doc003_workload() {
  Workload workload;
  workload.input_tokens = 2000;
  workload.output_tokens = 100;
  return workload;
}

// The 96-GPU deployment at `gpu_hour_usd`: every node generating the document's rate.
TokenCost deployment_cost(double gpu_hour_usd) {
  const Workload workload = doc003_workload();
  const double output_per_second = kOutputPerNode * static_cast<double>(kNodes);
  const double request_rate = output_per_second / static_cast<double>(workload.output_tokens);
  return cost_at_rate(gpu_hour_usd, static_cast<double>(kNodes * kGpusPerNode), request_rate, workload);
}

}  // namespace

void add_token_cost_cases(CaseList& cases) {
  const std::string source = "[doc-003]: $0.20 per million output tokens; 22.3k output tokens/s per node of 8 H100";
  // The document's $0.20 has two digits: 0.195 to 0.205, 2.5 % either side.
  cases.push_back(relative_case("doc003.cost.per_million_output", source, "USD", kPublishedCost,
                                deployment_cost(kRoundGpuHour).per_million_output, 0.025,
                                "96 H100 at $2.00 per GPU-hour, 12 x 22,300 output tokens/s"));
  // The cost is linear in the price: the price that gives $0.20 is 0.20 over the cost at $1 per GPU-hour.
  cases.push_back(relative_case("doc003.cost.h100_hour_implied", source, "USD/GPU-h", kImpliedGpuHour,
                                kPublishedCost / deployment_cost(1.0).per_million_output, 0.005,
                                "worked out by hand in validation/token_cost_cases.cpp"));
}

}  // namespace moeplan::validation
