#include "plan/token_cost.hpp"

namespace moeplan {

namespace {

constexpr double kSecondsPerHour = 3600.0;
constexpr double kMillion = 1e6;

}  // namespace

double dollars_per_million_tokens(double gpu_hour_usd, double gpus, double tokens_per_second) {
  if (gpu_hour_usd <= 0 || tokens_per_second <= 0) return 0.0;
  return gpu_hour_usd * gpus / kSecondsPerHour / tokens_per_second * kMillion;
}

TokenCost cost_at_rate(double gpu_hour_usd, double gpus, double request_rate, const Workload& workload) {
  const double input = request_rate * static_cast<double>(workload.input_tokens);
  const double output = request_rate * static_cast<double>(workload.output_tokens);
  return {gpu_hour_usd, dollars_per_million_tokens(gpu_hour_usd, gpus, input),
          dollars_per_million_tokens(gpu_hour_usd, gpus, output)};
}

TokenCost cost_per_gpu(double gpu_hour_usd, double output_tokens_per_gpu, const Workload& workload) {
  const double request_rate = output_tokens_per_gpu / static_cast<double>(workload.output_tokens);
  return cost_at_rate(gpu_hour_usd, 1.0, request_rate, workload);
}

}  // namespace moeplan
