#pragma once
// One sweep point: a rank's layer at one token count, every stage timed on the device.
#include <nlohmann/json.hpp>

#include "gpu/device_ceilings.hpp"
#include "gpu/event_timer.hpp"
#include "gpu/moe_layer.hpp"
#include "layer_case.hpp"
#include "stage_cost.hpp"
#include "sweep_models.hpp"

namespace moeplan::bench {

// Device inputs shared by every token count of one (model, slice, format).
struct SweepInputs {
  const std::uint16_t* hidden_states;
  const float* model_logits;  // [tokens][model's routed experts]
  const float* rank_logits;   // [tokens][rank's routed slots]
  const float* bias;
  gpu::RouterOutput model_router;  // scratch for timing the model's own router
  std::uint16_t* output;
};

nlohmann::json time_point(const SweepModel& model, const LayerCase& rank, gpu::MoeLayer& layer,
                          const SweepInputs& inputs, const gpu::Ceilings& ceilings, cudaStream_t stream);

// Launches the router of `layer` (grouped or softmax, with its shared column) on `tokens` tokens.
void launch_router(const LayerCase& layer, const float* logits, const float* bias, int tokens, gpu::RouterOutput output,
                   cudaStream_t stream);

}  // namespace moeplan::bench
