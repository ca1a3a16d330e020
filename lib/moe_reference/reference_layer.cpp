#include "moe_reference/reference_layer.hpp"

#include <cmath>
#include <stdexcept>

namespace moeplan::moe_reference {
namespace {

double dot(const float* weights, const float* values, int length) {
  double sum = 0;
  for (int index = 0; index < length; ++index) sum += static_cast<double>(weights[index]) * values[index];
  return sum;
}

double dot(const float* weights, const double* values, int length) {
  double sum = 0;
  for (int index = 0; index < length; ++index) sum += static_cast<double>(weights[index]) * values[index];
  return sum;
}

void gate_up_row(const float* token, const ExpertWeights& weights, int expert, double* activation) {
  const std::size_t hidden = static_cast<std::size_t>(weights.hidden);
  const std::size_t intermediate = static_cast<std::size_t>(weights.intermediate);
  const float* w13 = weights.w13.data() + static_cast<std::size_t>(expert) * 2 * intermediate * hidden;
  for (std::size_t feature = 0; feature < intermediate; ++feature) {
    const double gate = dot(w13 + feature * hidden, token, weights.hidden);
    const double up = dot(w13 + (intermediate + feature) * hidden, token, weights.hidden);
    activation[feature] = silu(gate) * up;  // [doc-002]: GEMM1 (w13) -> SiLU-and-mul
  }
}

void down_row(const double* activation, const ExpertWeights& weights, int expert, double* output) {
  const std::size_t hidden = static_cast<std::size_t>(weights.hidden);
  const std::size_t intermediate = static_cast<std::size_t>(weights.intermediate);
  const float* w2 = weights.w2.data() + static_cast<std::size_t>(expert) * hidden * intermediate;
  for (std::size_t feature = 0; feature < hidden; ++feature) {
    output[feature] = dot(w2 + feature * intermediate, activation, weights.intermediate);
  }
}

int expert_of_row(const Alignment& alignment, int row) {
  return alignment.block_experts[static_cast<std::size_t>(row / alignment.block_size)];
}

}  // namespace

double silu(double x) { return x / (1.0 + std::exp(-x)); }

std::vector<double> reference_gate_up_activation(std::span<const float> hidden_states, int top_k,
                                                 const Alignment& alignment, const ExpertWeights& weights) {
  const std::size_t intermediate = static_cast<std::size_t>(weights.intermediate);
  std::vector<double> activation(static_cast<std::size_t>(alignment.padded_rows()) * intermediate, 0.0);
  for (int row = 0; row < alignment.padded_rows(); ++row) {
    const std::int32_t entry = alignment.sorted_entries[static_cast<std::size_t>(row)];
    if (entry == kPaddingEntry) continue;
    const float* token = hidden_states.data() + static_cast<std::size_t>(entry / top_k) * weights.hidden;
    gate_up_row(token, weights, expert_of_row(alignment, row), activation.data() + row * intermediate);
  }
  return activation;
}

std::vector<double> reference_down_projection(std::span<const double> activation, const Alignment& alignment,
                                              const ExpertWeights& weights) {
  const std::size_t hidden = static_cast<std::size_t>(weights.hidden);
  const std::size_t intermediate = static_cast<std::size_t>(weights.intermediate);
  if (activation.size() != static_cast<std::size_t>(alignment.padded_rows()) * intermediate) {
    throw std::invalid_argument("reference: activation rows do not match the alignment");
  }
  std::vector<double> output(static_cast<std::size_t>(alignment.padded_rows()) * hidden, 0.0);
  for (int row = 0; row < alignment.padded_rows(); ++row) {
    if (alignment.sorted_entries[static_cast<std::size_t>(row)] == kPaddingEntry) continue;
    down_row(activation.data() + row * intermediate, weights, expert_of_row(alignment, row),
             output.data() + row * hidden);
  }
  return output;
}

std::vector<double> reference_combine(std::span<const double> expert_rows, const Alignment& alignment,
                                      const Routing& routing, double output_scale, int hidden) {
  const std::size_t width = static_cast<std::size_t>(hidden);
  std::vector<double> output(static_cast<std::size_t>(routing.num_tokens) * width, 0.0);
  for (std::size_t entry = 0; entry < alignment.entry_positions.size(); ++entry) {
    const std::int32_t row = alignment.entry_positions[entry];
    if (row < 0) continue;
    const double weight = output_scale * routing.weights[entry];
    double* token = output.data() + (entry / static_cast<std::size_t>(routing.top_k)) * width;
    for (std::size_t feature = 0; feature < width; ++feature)
      token[feature] += weight * expert_rows[row * width + feature];
  }
  return output;
}

std::vector<double> reference_expert_ffn(std::span<const float> hidden_states, const ExpertWeights& weights,
                                         int expert) {
  const std::size_t hidden = static_cast<std::size_t>(weights.hidden);
  const std::size_t tokens = hidden_states.size() / hidden;
  std::vector<double> activation(static_cast<std::size_t>(weights.intermediate));
  std::vector<double> output(tokens * hidden);
  for (std::size_t token = 0; token < tokens; ++token) {
    gate_up_row(hidden_states.data() + token * hidden, weights, expert, activation.data());
    down_row(activation.data(), weights, expert, output.data() + token * hidden);
  }
  return output;
}

std::vector<double> reference_moe_layer(std::span<const float> hidden_states, const Routing& routing,
                                        const Alignment& alignment, const ExpertWeights& weights, double output_scale) {
  const std::vector<double> activation = reference_gate_up_activation(hidden_states, routing.top_k, alignment, weights);
  const std::vector<double> rows = reference_down_projection(activation, alignment, weights);
  return reference_combine(rows, alignment, routing, output_scale, weights.hidden);
}

}  // namespace moeplan::moe_reference
