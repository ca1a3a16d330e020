#include "sweep.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "gpu/random_fill.hpp"
#include "io/atomic_file.hpp"
#include "sweep_point.hpp"
#include "torch_peer.hpp"

namespace moeplan::bench {
namespace {

void require_directory_of(const std::string& path, const char* option) {
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  if (!directory.empty() && !std::filesystem::is_directory(directory)) {
    throw std::invalid_argument(std::string(option) + " " + path + ": no directory " + directory.string());
  }
}

struct RandomWeights {
  gpu::DeviceBuffer<std::uint8_t> w13, w2;
  gpu::DeviceBuffer<float> w13_scales, w2_scales;
  gpu::ExpertWeightsView view;
};

// Random weights of one rank (never zeros): bf16 of amplitude sqrt(3 / fan_in), or random
// finite e4m3 codes with block scales.
RandomWeights random_weights(const LayerCase& rank, gpu::WeightFormat format, cudaStream_t stream) {
  const long experts = rank.local_experts(), hidden = rank.hidden, intermediate = rank.intermediate;
  const long w13_elements = experts * 2 * intermediate * hidden, w2_elements = experts * hidden * intermediate;
  const long element_bytes = format == gpu::WeightFormat::bf16 ? 2 : 1;
  RandomWeights weights;
  weights.w13 = gpu::DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(w13_elements * element_bytes));
  weights.w2 = gpu::DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(w2_elements * element_bytes));
  if (format == gpu::WeightFormat::bf16) {
    gpu::fill_random_bf16(reinterpret_cast<std::uint16_t*>(weights.w13.data()), w13_elements,
                          static_cast<float>(std::sqrt(3.0 / hidden)), 11, stream);
    gpu::fill_random_bf16(reinterpret_cast<std::uint16_t*>(weights.w2.data()), w2_elements,
                          static_cast<float>(std::sqrt(3.0 / intermediate)), 12, stream);
  } else {
    gpu::fill_random_e4m3(weights.w13.data(), w13_elements, 13, stream);
    gpu::fill_random_e4m3(weights.w2.data(), w2_elements, 14, stream);
    weights.w13_scales = gpu::DeviceBuffer<float>(static_cast<std::size_t>(w13_elements / (128 * 128)));
    weights.w2_scales = gpu::DeviceBuffer<float>(static_cast<std::size_t>(w2_elements / (128 * 128)));
    gpu::fill_random_float(weights.w13_scales.data(), static_cast<long>(weights.w13_scales.size()), 1e-3f, 15, stream);
    gpu::fill_random_float(weights.w2_scales.data(), static_cast<long>(weights.w2_scales.size()), 1e-3f, 16, stream);
  }
  weights.view = {format,
                  static_cast<int>(experts),
                  rank.hidden,
                  rank.intermediate,
                  weights.w13.data(),
                  weights.w13_scales.data(),
                  weights.w2.data(),
                  weights.w2_scales.data()};
  return weights;
}

gpu::DeviceBuffer<float> random_floats(long count, float amplitude, std::uint64_t seed, cudaStream_t stream) {
  gpu::DeviceBuffer<float> buffer(static_cast<std::size_t>(count));
  gpu::fill_random_float(buffer.data(), count, amplitude, seed, stream);
  return buffer;
}

void sweep_slice(const SweepModel& model, int local_routed, gpu::WeightFormat format, const SweepOptions& options,
                 const gpu::Ceilings& ceilings, nlohmann::json& points, cudaStream_t stream) {
  const int max_tokens = options.tokens.back();
  const LayerCase largest = rank_layer(model, local_routed, max_tokens);
  const RandomWeights weights = random_weights(largest, format, stream);
  gpu::DeviceBuffer<std::uint16_t> hidden_states(static_cast<std::size_t>(max_tokens) * largest.hidden);
  gpu::fill_random_bf16(hidden_states.data(), static_cast<long>(hidden_states.size()), 1.0f, 21, stream);
  gpu::DeviceBuffer<std::uint16_t> output(hidden_states.size());
  const auto model_logits =
      random_floats(static_cast<long>(max_tokens) * model.full.routed_experts(), 2.0f, 22, stream);
  const auto rank_logits = random_floats(static_cast<long>(max_tokens) * local_routed, 2.0f, 23, stream);
  const auto bias = random_floats(model.full.routed_experts(), 0.05f, 24, stream);
  gpu::DeviceBuffer<std::int32_t> model_ids(static_cast<std::size_t>(max_tokens) * model.full.columns());
  gpu::DeviceBuffer<float> model_weights(model_ids.size());
  const gpu::MoeLayerConfig config{largest.columns(), moe_reference::global_to_local_map(largest.parallel),
                                   largest.routed_scaling_factor};
  gpu::MoeLayer layer(config, max_tokens, weights.view, stream);
  const SweepInputs inputs{hidden_states.data(),
                           model_logits.data(),
                           rank_logits.data(),
                           bias.data(),
                           {model_ids.data(), model_weights.data()},
                           output.data()};
  for (int tokens : options.tokens) {
    points.push_back(time_point(model, rank_layer(model, local_routed, tokens), layer, inputs, ceilings, stream));
  }
}

}  // namespace

nlohmann::json device_record(const gpu::DeviceFacts& facts, const gpu::Ceilings& ceilings) {
  return {{"name", facts.name},
          {"count", 1},
          {"multiprocessors", facts.multiprocessors},
          {"l2_bytes", facts.l2_bytes},
          {"memory_bytes", facts.memory_bytes},
          {"driver_version", facts.driver_version},
          {"runtime_version", facts.runtime_version},
          {"copy_bytes_per_second", ceilings.copy_bytes_per_second},
          {"copy_measure", "cudaMemcpyAsync device to device of 2 GiB, bytes read + written, median of 7 trials"},
          {"bf16_gemm_flops_per_second", ceilings.bf16_gemm_flops_per_second},
          {"gemm_measure", "cublasGemmEx bf16 8192^3, fp32 accumulation, random data, median of 7 trials"}};
}

int run_sweep(const SweepOptions& options) {
  // Refused before the sweep's minutes rather than after them.
  require_directory_of(options.output_path, "--out");
  if (!options.torch_output_path.empty()) {
    require_directory_of(options.torch_output_path, "--torch-out");
    if (same_file(options.torch_output_path, options.output_path)) {
      throw std::invalid_argument("--torch-out " + options.torch_output_path + ": the sweep's own file (--out)");
    }
  }
  cudaStream_t stream = nullptr;
  gpu::check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  const gpu::DeviceFacts facts = gpu::read_device_facts();
  const gpu::Ceilings ceilings = gpu::measure_ceilings(stream);
  std::printf("%s: copy %.2f TB/s, bf16 GEMM %.1f TFLOP/s\n", facts.name.c_str(), ceilings.copy_bytes_per_second / 1e12,
              ceilings.bf16_gemm_flops_per_second / 1e12);
  nlohmann::json points = nlohmann::json::array();
  for (const std::string& name : options.formats) {
    const gpu::WeightFormat format = name == "fp8" ? gpu::WeightFormat::fp8_block_scaled : gpu::WeightFormat::bf16;
    for (const SweepModel& model : sweep_models()) {
      for (int local_routed : model.local_routed)
        sweep_slice(model, local_routed, format, options, ceilings, points, stream);
    }
  }
  const nlohmann::json result = {
      {"schema", "moeplan.moe_sweep.v1"},
      {"command", options.command},
      {"device", device_record(facts, ceilings)},
      {"roofline", "max(bytes / measured copy bandwidth, FLOPs / measured bf16 GEMM rate); fraction = roofline / time"},
      {"dispatch_model",
       "E_local < experts: each token sends top_k rows to distinct local slots uniformly at random "
       "(a balanced EP dispatch); the fused shared slot takes every token; routing is timed with the "
       "model's own router over all its experts"},
      {"points", points}};
  write_file_atomically(options.output_path, result.dump(1));
  cudaStreamDestroy(stream);
  if (options.torch_output_path.empty()) return 0;
  return run_torch_peer(options.output_path, options.torch_output_path, options.tokens);
}

}  // namespace moeplan::bench
