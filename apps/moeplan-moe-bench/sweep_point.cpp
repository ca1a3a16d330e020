#include "sweep_point.hpp"

#include <cstdio>

namespace moeplan::bench {
namespace {

// Past this many rows per expert the streaming kernel re-reads each expert's weights too often
// to be worth timing.
constexpr long kStreamingTimedRows = 1024;

nlohmann::json stage_record(const gpu::Timing& timing, const StageCost& cost, const gpu::Ceilings& ceilings) {
  const double roofline = roofline_seconds(cost, ceilings);
  return {{"seconds", timing.median_seconds},
          {"min_seconds", timing.min_seconds},
          {"max_seconds", timing.max_seconds},
          {"repeats", timing.repeats},
          {"bytes", cost.bytes},
          {"flops", cost.flops},
          {"roofline_seconds", roofline},
          {"roofline_fraction", roofline / timing.median_seconds},
          {"bound", bound_of(cost, ceilings)},
          {"copy_bandwidth_fraction", cost.bytes / timing.median_seconds / ceilings.copy_bytes_per_second},
          {"gemm_rate_fraction", cost.flops / timing.median_seconds / ceilings.bf16_gemm_flops_per_second}};
}

LayerTraffic read_traffic(const LayerCase& rank, gpu::MoeLayer& layer, cudaStream_t stream) {
  std::vector<std::int32_t> counts(static_cast<std::size_t>(layer.weights().num_experts));
  gpu::check_cuda(cudaMemcpyAsync(counts.data(), layer.alignment().expert_counts, counts.size() * 4,
                                  cudaMemcpyDeviceToHost, stream),
                  "read counts");
  gpu::check_cuda(cudaStreamSynchronize(stream), "read counts");
  LayerTraffic traffic{rank.tokens, rank.columns(), rank.routed_experts(), 0,
                       0,           rank.hidden,    rank.intermediate,     layer.weights().format};
  for (std::int32_t count : counts) {
    traffic.rows += count;
    traffic.active_experts += count > 0 ? 1 : 0;
  }
  return traffic;
}

const char* path_name(gpu::GemmPath path) { return path == gpu::GemmPath::streaming ? "streaming" : "cublas"; }

}  // namespace

void launch_router(const LayerCase& layer, const float* logits, const float* bias, int tokens, gpu::RouterOutput output,
                   cudaStream_t stream) {
  if (layer.router == RouterKind::biased_grouped) {
    gpu::launch_grouped_topk(logits, bias, tokens, layer.grouped, layer.shared(), output, stream);
  } else {
    gpu::launch_softmax_topk(logits, tokens, layer.softmax, layer.shared(), output, stream);
  }
}

nlohmann::json time_point(const SweepModel& model, const LayerCase& rank, gpu::MoeLayer& layer,
                          const SweepInputs& inputs, const gpu::Ceilings& ceilings, cudaStream_t stream) {
  const int tokens = rank.tokens;
  LayerCase model_layer = model.full;
  model_layer.tokens = tokens;
  const gpu::Timing routing = gpu::time_on_stream(
      [&] { launch_router(model_layer, inputs.model_logits, inputs.bias, tokens, inputs.model_router, stream); },
      stream);
  launch_router(rank, inputs.rank_logits, inputs.bias, tokens, layer.router_output(), stream);
  const gpu::Timing align = gpu::time_on_stream([&] { layer.align(tokens); }, stream);
  const LayerTraffic traffic = read_traffic(rank, layer, stream);
  LayerTraffic model_traffic = traffic;
  model_traffic.routed_experts = model.full.routed_experts();

  nlohmann::json paths = nlohmann::json::object();
  for (gpu::GemmPath path : {gpu::GemmPath::streaming, gpu::GemmPath::library}) {
    if (path == gpu::GemmPath::streaming && traffic.rows > kStreamingTimedRows * layer.weights().num_experts) continue;
    layer.quantize_hidden(inputs.hidden_states, tokens);
    const gpu::Timing gate_up = gpu::time_on_stream([&] { layer.gate_up(inputs.hidden_states, tokens, path); }, stream);
    layer.quantize_activation(tokens);
    const gpu::Timing down = gpu::time_on_stream([&] { layer.down(tokens, path); }, stream);
    paths[path_name(path)] = {{"gate_up", stage_record(gate_up, gate_up_cost(traffic), ceilings)},
                              {"down", stage_record(down, down_cost(traffic), ceilings)}};
  }
  const gpu::GemmPath chosen = layer.choose_path(tokens);
  // e4m3 only: each quantization timed in the order forward runs it, before the GEMM that reads it.
  const bool quantizes = layer.quantizes_activations();
  gpu::Timing quantize_hidden, quantize_activation;
  if (quantizes) {
    quantize_hidden = gpu::time_on_stream([&] { layer.quantize_hidden(inputs.hidden_states, tokens); }, stream);
  }
  layer.gate_up(inputs.hidden_states, tokens, chosen);
  if (quantizes) quantize_activation = gpu::time_on_stream([&] { layer.quantize_activation(tokens); }, stream);
  layer.down(tokens, chosen);
  const gpu::Timing combine = gpu::time_on_stream([&] { layer.combine(tokens, inputs.output); }, stream);
  const gpu::Timing whole = gpu::time_on_stream(
      [&] {
        launch_router(model_layer, inputs.model_logits, inputs.bias, tokens, inputs.model_router, stream);
        layer.forward(inputs.hidden_states, tokens, inputs.output);
      },
      stream);
  const StageCost layer_cost = routing_cost(model_traffic) + align_cost(traffic) + quantize_hidden_cost(traffic) +
                               gate_up_cost(traffic) + quantize_activation_cost(traffic) + down_cost(traffic) +
                               combine_cost(traffic);
  nlohmann::json stages = {{"routing", stage_record(routing, routing_cost(model_traffic), ceilings)},
                           {"align", stage_record(align, align_cost(traffic), ceilings)},
                           {"gate_up", paths[path_name(chosen)]["gate_up"]},
                           {"down", paths[path_name(chosen)]["down"]},
                           {"combine", stage_record(combine, combine_cost(traffic), ceilings)},
                           {"layer", stage_record(whole, layer_cost, ceilings)}};
  if (quantizes) {
    stages["quantize_hidden"] = stage_record(quantize_hidden, quantize_hidden_cost(traffic), ceilings);
    stages["quantize_activation"] = stage_record(quantize_activation, quantize_activation_cost(traffic), ceilings);
  }
  std::printf(
      "%-16s E_local %3d+%d %-4s T %5d %-9s | route %6.1f us | align %6.1f us | quantize %6.1f us | "
      "w13 %8.1f us %5.1f%% | "
      "w2 %8.1f us %5.1f%% | combine %6.1f us | layer %8.1f us %5.1f%%\n",
      model.full.name.c_str(), rank.routed_experts(), rank.parallel.fused_shared,
      layer.weights().format == gpu::WeightFormat::bf16 ? "bf16" : "fp8", tokens, path_name(chosen),
      routing.median_seconds * 1e6, align.median_seconds * 1e6,
      (quantize_hidden.median_seconds + quantize_activation.median_seconds) * 1e6,
      stages["gate_up"]["seconds"].get<double>() * 1e6, stages["gate_up"]["roofline_fraction"].get<double>() * 100,
      stages["down"]["seconds"].get<double>() * 1e6, stages["down"]["roofline_fraction"].get<double>() * 100,
      combine.median_seconds * 1e6, whole.median_seconds * 1e6,
      stages["layer"]["roofline_fraction"].get<double>() * 100);
  std::fflush(stdout);
  return {{"model", model.full.name},
          {"weights", layer.weights().format == gpu::WeightFormat::bf16 ? "bf16" : "fp8_e4m3_block128x128"},
          {"local_routed_experts", rank.routed_experts()},
          {"fused_shared_experts", rank.parallel.fused_shared},
          {"tokens", tokens},
          {"top_k", rank.top_k()},
          {"rows", traffic.rows},
          {"active_experts", traffic.active_experts},
          {"path", path_name(chosen)},
          {"stages", stages},
          {"gemm_paths", paths}};
}

}  // namespace moeplan::bench
