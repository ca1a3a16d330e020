#pragma once
// A model and scenario ready to serve: the step model and serving context plan-deploy builds, and one
// layout simulated under them. Shared by the [doc-004] cases, the 910B fit and the simulation benchmark.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "predict/offered_load.hpp"
#include "sim/simulation.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"

namespace moeplan::validation {

inline std::string source_path(const std::string& relative) { return std::string(MOEPLAN_SOURCE_DIR) + "/" + relative; }

struct ServingSetting {
  Model model;
  Scenario scenario;
  StepModel ceilings;
  EngineProfile profile;  // as plan-deploy and simulate pick it (predict::scenario_profile)
  StepCost steps;
  ServingContext context;  // refers to the members above, so a setting is neither copied nor moved

  ServingSetting(Model model_in, Scenario scenario_in)
      : model(std::move(model_in)),
        scenario(std::move(scenario_in)),
        ceilings(model, scenario.cluster.hardware, tuned_efficiency(scenario.cluster.efficiency)),
        profile(predict::scenario_profile(source_path("engines"), scenario)),
        steps(ceilings, profile),
        context{model, scenario, steps, SkewModel{}} {}
  ServingSetting(const ServingSetting&) = delete;
  ServingSetting& operator=(const ServingSetting&) = delete;

  // max_batch: running sequences per DP rank (default: the scenario's); duration 0 serves every request;
  // graph_batch_sizes: the captured decode graphs (default: the scenario's).
  sim::SimulationResult run(const std::string& layout_text, std::optional<std::int64_t> max_batch = std::nullopt,
                            double duration = 0,
                            std::optional<std::vector<std::int64_t>> graph_batch_sizes = std::nullopt) const {
    const Layout layout = parse_layout(layout_text, "validation");
    validate_layout(layout, model, "validation");
    sim::SimulationOptions options;
    options.max_batch = max_batch;
    options.duration = duration;
    options.graph_batch_sizes = std::move(graph_batch_sizes);
    return sim::simulate_aggregated(context, {layout, sim::best_role_options(context, layout, Role::aggregated), 1},
                                    options);
  }
};

}  // namespace moeplan::validation
