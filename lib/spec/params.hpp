#pragma once
// Parameter accounting: totals and activated parameters per token, from the weight inventory.
#include <cstdint>

#include "spec/model.hpp"

namespace moeplan {

struct ParameterCounts {
  std::int64_t total = 0;  // every weight once (MTP modules excluded)
  std::int64_t embedding = 0;
  std::int64_t lm_head = 0;
  std::int64_t active_with_embedding_and_head = 0;
  std::int64_t expert = 0;  // one routed expert in one layer

  // Activated parameters under the convention a publisher used [moeplan-model-arithmetic].
  std::int64_t active(ActiveCount counts) const;
};

ParameterCounts count_parameters(const Model& model);

}  // namespace moeplan
