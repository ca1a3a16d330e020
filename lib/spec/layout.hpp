#pragma once
// A deployment layout: how attention, the projections, the FFNs and the experts are split over ranks.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "spec/model.hpp"

namespace moeplan {

struct Layout {
  std::int64_t tp = 1;            // attention tensor parallel
  std::int64_t dp = 1;            // attention data parallel
  std::int64_t otp = 1;           // O-projection TP group inside pure DP [doc-004]
  std::int64_t qkvtp = 1;         // QKV-projection TP group inside pure DP [doc-004]
  std::int64_t dense_tp = 0;      // dense-FFN (and unfused shared expert) TP; 0 = same as tp
  std::int64_t lm_head_tp = 0;    // LM head / embedding TP; 0 = same as tp
  std::int64_t ep = 1;            // expert parallel
  std::int64_t redundant = 0;     // redundant routed expert slots over the EP group [doc-001] [doc-003]
  std::int64_t fused_shared = 0;  // shared-expert slots fused into each EP rank's MoE [doc-000] [doc-002]; 0 = unfused
  std::int64_t pp = 1;            // pipeline stages, each a contiguous run of layers on its own tp x dp ranks
  std::int64_t nodes = 1;

  // Ranks of one pipeline stage; every collective, the EP group and the attention DP live inside it.
  std::int64_t world() const { return tp * dp; }
  // GPUs of one instance: every stage's ranks.
  std::int64_t gpus() const { return world() * pp; }
  std::int64_t moe_tp() const { return world() / ep; }
  std::int64_t dense_tp_size() const { return dense_tp == 0 ? tp : dense_tp; }
  std::int64_t lm_head_tp_size() const { return lm_head_tp == 0 ? tp : lm_head_tp; }
  std::int64_t physical_experts(const Model& model) const { return model.moe.num_experts + redundant; }
};

// "dp=16,tp=1,otp=4,ep=16": unknown keys, bad numbers and repeats are InputErrors naming `source`.
Layout parse_layout(const std::string& text, const std::string& source);

// Divisibility and engine rules; throws InputError naming `source` and the offending layout key.
void validate_layout(const Layout& layout, const Model& model, const std::string& source);

// Layers of each pipeline stage, first stage first: vLLM's get_pp_indices split [vllm-pp-indices], an even
// share each with the remainder given one layer apiece to the stages just before the last.
std::vector<std::int64_t> pipeline_stage_layers(std::int64_t layers, std::int64_t stages);

// One pipeline stage: layers [first_layer, first_layer + layers) of the model; the first stage holds the
// embedding, the last the final norm and the LM head (vLLM's PPMissingLayer stands in elsewhere [vllm-pp-indices]).
struct PipelineStage {
  std::int64_t index = 0;
  std::int64_t first_layer = 0;
  std::int64_t layers = 0;
  bool first = true;
  bool last = true;

  // Of this stage's layers, those below `dense_layers` (the model's leading dense-FFN layers).
  std::int64_t dense_layers(std::int64_t model_dense_layers) const;
  std::int64_t moe_layers(std::int64_t model_dense_layers) const { return layers - dense_layers(model_dense_layers); }
};

// The layout's stages over the model's layers, first to last; one stage holding everything when pp = 1.
std::vector<PipelineStage> pipeline_stages(const Model& model, const Layout& layout);

std::string layout_label(const Layout& layout);
nlohmann::json layout_json(const Layout& layout);

}  // namespace moeplan
