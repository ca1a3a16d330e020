#pragma once
// The tables moeplan simulate and plan-deploy --simulate print.
#include <string>
#include <vector>

#include "sim/ranking.hpp"
#include "sim/simulation.hpp"

namespace moeplan::cli {

// Throughput, TTFT and TPOT percentiles, and when memory first binds.
std::string simulation_summary_text(const sim::SimulationResult& result);
// Each pool's time series, thinned to about `rows` rows.
std::string simulation_series_table(const sim::SimulationResult& result, std::size_t rows);
// plan-deploy --simulate: the static rank beside the simulated one.
std::string simulated_ranking_table(const std::vector<sim::SimulatedCandidate>& ranking);

}  // namespace moeplan::cli
