#pragma once
// A deployment layout: how attention, the projections, the FFNs and the experts are split over ranks.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

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
  std::int64_t nodes = 1;

  std::int64_t world() const { return tp * dp; }
  std::int64_t moe_tp() const { return world() / ep; }
  std::int64_t dense_tp_size() const { return dense_tp == 0 ? tp : dense_tp; }
  std::int64_t lm_head_tp_size() const { return lm_head_tp == 0 ? tp : lm_head_tp; }
  std::int64_t physical_experts(const Model& model) const { return model.moe.num_experts + redundant; }
};

// "dp=16,tp=1,otp=4,ep=16": unknown keys, bad numbers and repeats are InputErrors naming `source`.
Layout parse_layout(const std::string& text, const std::string& source);

// Divisibility and engine rules; throws InputError naming `source` and the offending layout key.
void validate_layout(const Layout& layout, const Model& model, const std::string& source);

std::string layout_label(const Layout& layout);
nlohmann::json layout_json(const Layout& layout);

}  // namespace moeplan
