#pragma once
// Speculative decoding: a draft proposes k tokens per sequence, the model verifies them in one step of
// 1 + k tokens, and each step yields 1 + the accepted tokens. The draft is the model's own MTP modules
// (DeepSeek's num_nextn_predict_layers) or an EAGLE head beside it.
#include <cstdint>
#include <string>

#include "spec/model.hpp"

namespace moeplan {

class YamlView;

enum class SpeculativeMethod {
  mtp,     // the model's multi-token-prediction modules, reused for every drafted token
  eagle,   // an EAGLE head: dense decoder layers over [embedding; hidden state]
  eagle3,  // an EAGLE-3 head: as eagle, fed three hidden states
};

std::string speculative_method_name(SpeculativeMethod method);

// What the draft costs: its decoder layers, their FFN and the projection that feeds them.
struct DraftShape {
  std::int64_t layers = 0;              // decoder layers; 0 = no draft
  std::int64_t dense_intermediate = 0;  // 0: each layer is one of the model's MoE layers (MTP); else a SwiGLU width
  std::int64_t fusion_inputs = 2;       // the [inputs x hidden] -> hidden projection's inputs

  bool present() const { return layers > 0; }
};

struct Speculative {
  SpeculativeMethod method = SpeculativeMethod::mtp;
  std::int64_t draft_tokens = 1;  // k: tokens drafted per sequence and step, verified together
  // Probability that a drafted token is accepted given the ones before it were [deepseek-v3-report]; or,
  // measured, the mean accepted tokens per step (0 = use the acceptance).
  double acceptance = 0.85;
  double measured_accepted_tokens = 0;
  std::int64_t draft_layers = 1;             // eagle: the head's decoder layers
  std::int64_t draft_intermediate_size = 0;  // eagle: their SwiGLU width
  std::string draft_model;                   // eagle: the head's checkpoint, for the launch command

  // Mean tokens accepted per step: a + a^2 + ... + a^k for acceptance a and k drafted tokens (each token
  // counts only if every one before it was accepted), or the measured mean.
  double accepted_tokens() const;
  // The draft's shape on `model`: its MTP layers (each a MoE layer of the model) or the EAGLE head.
  DraftShape draft(const Model& model) const;
};

// The scenario's `speculative:` block; InputErrors name the file and key.
Speculative read_speculative(const YamlView& view);

// Throws InputError naming the scenario file when the method needs what the model lacks (MTP layers).
void check_speculative(const Speculative& speculative, const Model& model, const std::string& scenario_file);

}  // namespace moeplan
