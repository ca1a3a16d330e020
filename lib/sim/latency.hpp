#pragma once
// Mean and percentiles of per-request latencies, as vLLM's benchmark_serving reports them.
#include <vector>

#include "sim/simulation.hpp"

namespace moeplan::sim {

// Percentiles interpolate linearly between order statistics (numpy's default, which benchmark_serving uses).
LatencyStats latency_stats(std::vector<double> values);

}  // namespace moeplan::sim
