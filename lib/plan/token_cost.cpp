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

TokenCost cost_at_offered_load(double gpu_hour_usd, double gpus, const Workload& workload, bool sustained,
                               double in_flight, double ttft_seconds, double tpot_seconds) {
  if (!sustained) return {gpu_hour_usd, 0.0, 0.0};
  double rate = workload.request_rate.value_or(0.0);
  if (!workload.request_rate) {
    const double request_seconds = ttft_seconds + tpot_seconds * static_cast<double>(workload.output_tokens - 1);
    rate = request_seconds > 0 ? in_flight / request_seconds : 0.0;
  }
  return cost_at_rate(gpu_hour_usd, gpus, rate, workload);
}

TokenCost cost_at_offered_load(const LoadFigures& load, const Scenario& scenario) {
  if (!load.offered) return {scenario.cluster.hardware.gpu_hour_usd, 0.0, 0.0};
  return cost_at_offered_load(scenario.cluster.hardware.gpu_hour_usd, static_cast<double>(scenario.cluster.gpus()),
                              scenario.workload, load.sustained, load.in_flight * static_cast<double>(load.replicas),
                              load.ttft, load.tpot);
}

TokenCost cost_per_gpu(double gpu_hour_usd, double output_tokens_per_gpu, const Workload& workload) {
  const double request_rate = output_tokens_per_gpu / static_cast<double>(workload.output_tokens);
  return cost_at_rate(gpu_hour_usd, 1.0, request_rate, workload);
}

}  // namespace moeplan
