#include "check_layer.hpp"

#include <cstdio>
#include <string>

#include "check_stages.hpp"
#include "gpu/moe_layer.hpp"
#include "gpu/streaming_gemm.hpp"
#include "host_layer.hpp"
#include "moe_reference/expert_parallel.hpp"
#include "moe_reference/fp8.hpp"

namespace moeplan::bench {
namespace {

constexpr double kOperandBound = 1e-2;  // bf16 operands and bf16 intermediates

std::string error_text(double error, double bound) {
  char text[96];
  std::snprintf(text, sizeof text, "relative error %.3e (bound %.0e)", error, bound);
  return text;
}

std::string format_name(gpu::WeightFormat format) { return format == gpu::WeightFormat::bf16 ? "bf16" : "fp8"; }

std::string path_name(gpu::GemmPath path) { return path == gpu::GemmPath::streaming ? "streaming" : "cublas"; }

// [doc-000]: the fused output must equal routed * factor + shared, computed here the unfused way.
std::vector<double> unfused_reference(const LayerCase& layer, const HostLayer& host,
                                      const moe_reference::ExpertWeights& weights,
                                      const moe_reference::Routing& fused) {
  const std::vector<std::int32_t> map = moe_reference::global_to_local_map(layer.parallel);
  if (layer.parallel.fused_shared == 0) {
    const moe_reference::Alignment alignment =
        moe_reference::align_by_expert(fused.expert_ids, map, layer.local_experts(), 1);
    return moe_reference::reference_moe_layer(host.hidden_states, fused, alignment, weights,
                                              layer.routed_scaling_factor);
  }
  moe_reference::Routing routed{fused.num_tokens, fused.top_k - 1, {}, {}, fused.selection_margins};
  for (int token = 0; token < fused.num_tokens; ++token) {
    for (int slot = 0; slot < routed.top_k; ++slot) {
      routed.expert_ids.push_back(fused.expert_ids[static_cast<std::size_t>(token) * fused.top_k + slot]);
      routed.weights.push_back(fused.weights[static_cast<std::size_t>(token) * fused.top_k + slot]);
    }
  }
  const moe_reference::Alignment alignment =
      moe_reference::align_by_expert(routed.expert_ids, map, layer.local_experts(), 1);
  std::vector<double> output =
      moe_reference::reference_moe_layer(host.hidden_states, routed, alignment, weights, layer.routed_scaling_factor);
  const int shared_slot = map[static_cast<std::size_t>(moe_reference::first_shared_id(layer.parallel))];
  const std::vector<double> shared = moe_reference::reference_expert_ffn(host.hidden_states, weights, shared_slot);
  for (std::size_t index = 0; index < output.size(); ++index) output[index] += shared[index];
  return output;
}

void check_path(const std::string& prefix, gpu::GemmPath path, StageRunner& runner,
                const moe_reference::ExpertWeights& weights, const std::vector<double>& layer_reference,
                const std::vector<double>* unquantised_reference, CheckTally& tally) {
  const std::string name = prefix + " " + path_name(path);
  const StageErrors errors = runner.run_gemms_and_combine(path, weights, layer_reference);
  tally.record(name + " w13+silu", errors.gate_up <= kOperandBound, error_text(errors.gate_up, kOperandBound));
  tally.record(name + " w2", errors.down <= kOperandBound, error_text(errors.down, kOperandBound));
  tally.record(name + " combine", errors.combine <= kOperandBound, error_text(errors.combine, kOperandBound));
  // The unfused reference multiplies the same weights but unrounded activations.
  const bool token_groups = runner.quantizes_activations();
  if (token_groups) {
    tally.record(name + " e4m3 token groups", errors.token_group_mismatches == 0,
                 std::to_string(errors.token_group_mismatches) + " rows differ from the host's codes or scales");
  }
  const double layer_bound = token_groups ? moe_reference::kE4m3LayerBound : kOperandBound;
  tally.record(name + " layer vs unfused reference", errors.layer <= layer_bound,
               error_text(errors.layer, layer_bound));
  if (unquantised_reference != nullptr) {
    const double error = runner.layer_error(*unquantised_reference);
    tally.record(name + " layer vs unquantised weights", error <= moe_reference::kE4m3LayerBound,
                 error_text(error, moe_reference::kE4m3LayerBound));
  }
}

void check_format(const LayerCase& layer, const HostLayer& host, gpu::WeightFormat format, CheckTally& tally) {
  const std::string prefix = "[" + layer.name + ", " + format_name(format) + "]";
  moe_reference::ExpertWeights reference_weights;
  DeviceWeights device = format == gpu::WeightFormat::bf16 ? upload_bf16_weights(host.weights)
                                                           : upload_fp8_weights(host.weights, reference_weights);
  const moe_reference::ExpertWeights& weights = format == gpu::WeightFormat::bf16 ? host.weights : reference_weights;
  StageRunner runner(layer, host, device.view);

  const moe_reference::Routing cpu = cpu_routing(layer, host);
  const RoutingComparison routing = runner.run_routing(cpu);
  tally.record(prefix + " routing", routing.passed, routing.detail);
  const moe_reference::Alignment alignment = moe_reference::align_by_expert(
      runner.gpu_routing().expert_ids, moe_reference::global_to_local_map(layer.parallel), layer.local_experts(),
      gpu::kStreamingBlockRows);
  const AlignmentComparison aligned = runner.run_align(alignment);
  tally.record(prefix + " align", aligned.passed, aligned.detail);

  const std::vector<double> layer_reference = unfused_reference(layer, host, weights, runner.gpu_routing());
  std::vector<double> unquantised;
  if (format == gpu::WeightFormat::fp8_block_scaled) {
    unquantised = unfused_reference(layer, host, host.weights, runner.gpu_routing());
  }
  for (gpu::GemmPath path : {gpu::GemmPath::streaming, gpu::GemmPath::library}) {
    check_path(prefix, path, runner, weights, layer_reference, unquantised.empty() ? nullptr : &unquantised, tally);
  }
}

}  // namespace

void check_layer_case(const LayerCase& layer, std::uint64_t seed, CheckTally& tally) {
  const HostLayer host = make_host_layer(layer, seed);
  for (gpu::WeightFormat format : {gpu::WeightFormat::bf16, gpu::WeightFormat::fp8_block_scaled}) {
    check_format(layer, host, format, tally);
  }
}

}  // namespace moeplan::bench
