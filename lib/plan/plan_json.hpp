#pragma once
// The plan file (schema_version 1): what plan-deploy found, in the form export and other tools read.
#include <cstddef>
#include <nlohmann/json.hpp>

#include "plan/search.hpp"
#include "plan/token_cost.hpp"

namespace moeplan {

nlohmann::json step_json(const StepBreakdown& step);

// {"gpu_hour_usd", "per_million_input_usd", "per_million_output_usd"}; the two per-million figures null when
// the cost is unpriced (no price, or no tokens served).
nlohmann::json token_cost_json(const TokenCost& cost);

// The plan JSON of docs/formats.md, with roles: every plan carries `layout`, `throughput_per_gpu`,
// `ttft`, `tpot`, `memory`, `step_time` and its roles with the engine settings export needs.
nlohmann::json plan_json(const Model& model, const Scenario& scenario, const SearchResult& result, std::size_t top);

}  // namespace moeplan
