// eplb-simulate counts its expert draws before sampling and refuses a study past the budget.
#include <doctest/doctest.h>

#include <string>

#include "eplb/routing_study.hpp"
#include "io/input_error.hpp"

using namespace moeplan::eplb;

TEST_CASE("the draws: layers sampled x batches x the EP sizes' GPUs x tokens per GPU x top-k") {
  LoadLog log;
  log.num_layers = 58;
  log.num_experts = 256;
  RoutingStudyOptions options;  // EP sizes summing to 1328 GPUs, 256 tokens per GPU, 8 batches, 4 layers
  const RoutingModel routing;   // top-8
  // 4 x 8 x 1328 x 256 x 8 = 87031808: the default study, inside the budget of 4e8.
  CHECK(routing_study_draws(log, routing, options) == 87031808.0);
  CHECK_NOTHROW(check_routing_study_budget(log, routing, options));
  // --batches 1000 --layers 1000 samples the log's 58 layers: 58 x 1000 x 1328 x 256 x 8 = 157745152000.
  options.batches = 1000;
  options.layers = 1000;
  CHECK_THROWS_WITH_AS(check_routing_study_budget(log, routing, options),
                       "command line: --batches: expected at most 400000000 expert draws (layers x batches x the EP "
                       "sizes' GPUs x tokens per GPU x top-k) (docs/budgets.md), got 157745152000",
                       moeplan::InputError);
}
