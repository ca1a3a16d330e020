#include "spec/params.hpp"

#include "spec/weight_tensors.hpp"

namespace moeplan {

std::int64_t ParameterCounts::active(ActiveCount counts) const {
  switch (counts) {
    case ActiveCount::embedding_and_head: return active_with_embedding_and_head;
    case ActiveCount::head_only: return active_with_embedding_and_head - embedding;
    case ActiveCount::neither: return active_with_embedding_and_head - embedding - lm_head;
  }
  return active_with_embedding_and_head;
}

ParameterCounts count_parameters(const Model& model) {
  ParameterCounts counts;
  const Moe& moe = model.moe;
  for (const WeightTensor& tensor : weight_tensors(model)) {
    const std::int64_t per_copy = tensor.rows * tensor.cols * scope_layers(model, tensor.scope);
    std::int64_t copies = 1;
    std::int64_t active_copies = 1;
    if (tensor.component == Component::routed_experts) {
      copies = moe.num_experts;
      active_copies = moe.experts_per_token;  // only the top-k routed experts run for a token
      if (tensor.scope == LayerScope::moe_layers) counts.expert += tensor.rows * tensor.cols;
    } else if (tensor.component == Component::shared_experts) {
      copies = active_copies = moe.shared_experts;
    }
    counts.total += per_copy * copies;
    counts.active_with_embedding_and_head += per_copy * active_copies;
    if (tensor.component == Component::embedding) counts.embedding += per_copy;
    if (tensor.component == Component::lm_head) counts.lm_head += per_copy;
  }
  return counts;
}

}  // namespace moeplan
