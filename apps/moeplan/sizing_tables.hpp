#pragma once
// plan-deploy's sizing and cost: the flags that ask for them, the sections they print and their JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inputs.hpp"
#include "plan/search.hpp"
#include "predict/offered_load.hpp"
#include "predict/sizing.hpp"

namespace moeplan::cli {

// --target-rate, --gpus-range and --gpu-hour-usd, written over the scenario's sizing block and price.
void add_sizing_options(CLI::App& command, ScenarioInput& input);

// Dollars per million input and output tokens of the top plans: at the throughput each plan's row shows, and
// on the whole cluster at the scenario's offered load (the aggregated plans).
std::string cost_section(const Scenario& scenario, const SearchResult& result, std::size_t top);

// The sizing answer: every size tried with its best capacity, then the fewest GPUs that carry the target.
std::string sizing_section(const Scenario& scenario, const predict::SizingAnswer& answer);
nlohmann::json sizing_json(const predict::SizingAnswer& answer);

}  // namespace moeplan::cli
