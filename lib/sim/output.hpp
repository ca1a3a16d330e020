#pragma once
// The simulation as JSON (summary, pools, time series) and its time series as CSV.
#include <nlohmann/json.hpp>
#include <string>

#include "sim/simulation.hpp"

namespace moeplan::sim {

// {"summary": {...}, "pools": [{"role", "layout", ..., "series": [{...}]}]}; times in s, rates per s.
nlohmann::json simulation_json(const SimulationResult& result);

// One row per pool and interval: pool,time_s,interval_s,output_tokens_per_s,prefill_tokens_per_s,
// running,waiting,kv_use,preemptions.
std::string simulation_csv(const SimulationResult& result);

}  // namespace moeplan::sim
