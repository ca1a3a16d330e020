#pragma once
// The candidate layouts a scenario's search space allows on its cluster.
#include <cstdint>
#include <vector>

#include "spec/layout.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"

namespace moeplan {

// Every combination of the search-space lists; an empty list takes every value the instance
// size allows. Layouts are not validated here: the search keeps each rejection's reason.
std::vector<Layout> enumerate_layouts(const Model& model, const Scenario& scenario);

std::vector<std::int64_t> divisors(std::int64_t value);

}  // namespace moeplan
