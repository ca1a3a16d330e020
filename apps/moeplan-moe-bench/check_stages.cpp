#include "check_stages.hpp"

#include <algorithm>
#include <cmath>

#include "check_tally.hpp"
#include "gpu/streaming_gemm.hpp"
#include "moe_reference/expert_parallel.hpp"
#include "moe_reference/fp8.hpp"

namespace moeplan::bench {
namespace {

// A float router may pick the other side of a decision only where the scores nearly tie.
constexpr double kRouterTieMargin = 1e-5;
constexpr double kRouterWeightTolerance = 1e-5;

template <class T>
std::vector<T> download(const T* data, std::size_t count, cudaStream_t stream) {
  std::vector<T> host(count);
  gpu::check_cuda(cudaMemcpyAsync(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost, stream), "download");
  gpu::check_cuda(cudaStreamSynchronize(stream), "download");
  return host;
}

bool segments_hold_same_entries(const moe_reference::Alignment& cpu, const moe_reference::Alignment& gpu) {
  for (int expert = 0; expert < cpu.num_local_experts; ++expert) {
    const auto begin = static_cast<std::ptrdiff_t>(cpu.expert_offsets[static_cast<std::size_t>(expert)]);
    const auto end = static_cast<std::ptrdiff_t>(cpu.expert_offsets[static_cast<std::size_t>(expert) + 1]);
    std::vector<std::int32_t> want(cpu.sorted_entries.begin() + begin, cpu.sorted_entries.begin() + end);
    std::vector<std::int32_t> got(gpu.sorted_entries.begin() + begin, gpu.sorted_entries.begin() + end);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    if (want != got) return false;
  }
  return true;
}

bool positions_consistent(const moe_reference::Alignment& cpu, const moe_reference::Alignment& gpu) {
  for (std::size_t entry = 0; entry < cpu.entry_positions.size(); ++entry) {
    const std::int32_t row = gpu.entry_positions[entry];
    if ((row >= 0) != (cpu.entry_positions[entry] >= 0)) return false;
    if (row >= 0 && gpu.sorted_entries[static_cast<std::size_t>(row)] != static_cast<std::int32_t>(entry)) return false;
  }
  return true;
}

}  // namespace

StageRunner::StageRunner(const LayerCase& layer, const HostLayer& host, const gpu::ExpertWeightsView& weights)
    : layer_(layer), host_(host) {
  gpu::check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
  hidden_states_ = gpu::DeviceBuffer<std::uint16_t>(std::span<const std::uint16_t>(to_bf16_bits(host.hidden_states)));
  logits_ = gpu::DeviceBuffer<float>(std::span<const float>(host.logits));
  bias_ = gpu::DeviceBuffer<float>(std::span<const float>(host.bias));
  output_ = gpu::DeviceBuffer<std::uint16_t>(host.hidden_states.size());
  const gpu::MoeLayerConfig config{layer.columns(), moe_reference::global_to_local_map(layer.parallel),
                                   layer.routed_scaling_factor};
  moe_ = std::make_unique<gpu::MoeLayer>(config, layer.tokens, weights, stream_);
}

StageRunner::~StageRunner() {
  moe_.reset();
  cudaStreamDestroy(stream_);
}

void StageRunner::poison(void* data, std::size_t bytes) {
  gpu::check_cuda(cudaMemsetAsync(data, 0xFF, bytes, stream_), "poison");
}

RoutingComparison StageRunner::run_routing(const moe_reference::Routing& cpu) {
  const std::size_t entries = static_cast<std::size_t>(layer_.tokens) * layer_.columns();
  const gpu::RouterOutput output = moe_->router_output();
  poison(output.expert_ids, entries * sizeof(std::int32_t));
  poison(output.weights, entries * sizeof(float));
  if (layer_.router == RouterKind::biased_grouped) {
    gpu::launch_grouped_topk(logits_.data(), bias_.data(), layer_.tokens, layer_.grouped, layer_.shared(), output,
                             stream_);
  } else {
    gpu::launch_softmax_topk(logits_.data(), layer_.tokens, layer_.softmax, layer_.shared(), output, stream_);
  }
  gpu_routing_ = {layer_.tokens, layer_.columns(), download(output.expert_ids, entries, stream_),
                  download(output.weights, entries, stream_), cpu.selection_margins};
  int ties = 0, mismatches = 0;
  for (int token = 0; token < layer_.tokens; ++token) {
    const auto first = static_cast<std::ptrdiff_t>(token) * layer_.columns();
    const bool same_ids = std::equal(cpu.expert_ids.begin() + first, cpu.expert_ids.begin() + first + layer_.columns(),
                                     gpu_routing_.expert_ids.begin() + first);
    bool same_weights = same_ids;
    for (int slot = 0; same_ids && slot < layer_.columns(); ++slot) {
      const float want = cpu.weights[static_cast<std::size_t>(first + slot)];
      const float got = gpu_routing_.weights[static_cast<std::size_t>(first + slot)];
      same_weights = same_weights && std::fabs(got - want) <= kRouterWeightTolerance * std::max(1.0f, std::fabs(want));
    }
    if (same_weights) continue;
    if (!same_ids && cpu.selection_margins[static_cast<std::size_t>(token)] < kRouterTieMargin) {
      ++ties;
    } else {
      ++mismatches;
    }
  }
  return {mismatches == 0, std::to_string(layer_.tokens - ties - mismatches) + " tokens identical, " +
                               std::to_string(ties) + " near-ties, " + std::to_string(mismatches) + " wrong"};
}

AlignmentComparison StageRunner::run_align(const moe_reference::Alignment& cpu) {
  const gpu::AlignmentBuffers buffers = moe_->alignment();
  const std::size_t experts = static_cast<std::size_t>(layer_.local_experts());
  const std::size_t blocks = static_cast<std::size_t>(moe_->max_blocks(layer_.tokens));
  const std::size_t rows = blocks * gpu::kStreamingBlockRows;
  const std::size_t entries = gpu_routing_.expert_ids.size();
  poison(buffers.expert_counts, experts * 4);
  poison(buffers.expert_offsets, (experts + 1) * 4);
  poison(buffers.sorted_entries, rows * 4);
  poison(buffers.block_experts, blocks * 4);
  poison(buffers.entry_positions, entries * 4);
  poison(buffers.running_blocks, blocks * sizeof(moe_reference::RunningBlock));
  poison(buffers.running_count, 4);
  moe_->align(layer_.tokens);
  moe_reference::Alignment& gpu = gpu_alignment_;
  gpu.block_size = gpu::kStreamingBlockRows;
  gpu.num_local_experts = static_cast<int>(experts);
  gpu.expert_counts = download(buffers.expert_counts, experts, stream_);
  gpu.expert_offsets = download(buffers.expert_offsets, experts + 1, stream_);
  gpu.sorted_entries = download(buffers.sorted_entries, rows, stream_);
  gpu.block_experts = download(buffers.block_experts, blocks, stream_);
  gpu.entry_positions = download(buffers.entry_positions, entries, stream_);
  const std::size_t used_rows = static_cast<std::size_t>(cpu.padded_rows());
  const bool tails_unused = std::all_of(gpu.sorted_entries.begin() + used_rows, gpu.sorted_entries.end(),
                                        [](std::int32_t entry) { return entry == moe_reference::kPaddingEntry; }) &&
                            std::all_of(gpu.block_experts.begin() + cpu.block_experts.size(), gpu.block_experts.end(),
                                        [](std::int32_t expert) { return expert == -1; });
  const bool layout = gpu.expert_counts == cpu.expert_counts && gpu.expert_offsets == cpu.expert_offsets &&
                      std::equal(cpu.block_experts.begin(), cpu.block_experts.end(), gpu.block_experts.begin());
  const std::vector<moe_reference::RunningBlock> running = moe_reference::running_blocks(cpu, gpu::kRidingRows);
  const std::vector<std::int32_t> running_count = download(buffers.running_count, 1, stream_);
  std::vector<moe_reference::RunningBlock> gpu_running = download(buffers.running_blocks, blocks, stream_);
  gpu_running.resize(std::min(gpu_running.size(), static_cast<std::size_t>(std::max(running_count[0], 0))));
  const bool runs_same = running_count[0] == static_cast<std::int32_t>(running.size()) && gpu_running == running;
  const bool passed =
      layout && tails_unused && runs_same && segments_hold_same_entries(cpu, gpu) && positions_consistent(cpu, gpu);
  gpu.sorted_entries.resize(used_rows);
  gpu.block_experts.resize(cpu.block_experts.size());
  return {passed, std::to_string(cpu.padded_rows()) + " aligned rows, " + std::to_string(cpu.block_experts.size()) +
                      " blocks, " + std::to_string(running.size()) + " running" +
                      (passed ? "" : " (layout, tail, running list, segment or position mismatch)")};
}

TokenGroupBuffers StageRunner::poison_token_groups(gpu::DeviceBuffer<std::uint8_t>& codes,
                                                   gpu::DeviceBuffer<float>& scales) {
  codes.fill_bytes(0xFF, stream_);  // e4m3 NaN
  scales.fill_bytes(0xFF, stream_);
  return {&codes, &scales};
}

std::vector<float> StageRunner::rows_read(const std::vector<float>& rows, int width, const TokenGroupBuffers& groups,
                                          bool aligned_rows, int& mismatches) const {
  if (groups.codes == nullptr) return rows;
  const int row_count = static_cast<int>(rows.size()) / width;
  const moe_reference::BlockScaledMatrix want = moe_reference::quantize_token_groups(rows, row_count, width);
  const std::vector<std::uint8_t> codes = download(groups.codes->data(), want.values.size(), stream_);
  const std::vector<float> scales = download(groups.scales->data(), want.scales.size(), stream_);
  for (int row = 0; row < row_count; ++row) {
    if (aligned_rows && gpu_alignment_.sorted_entries[static_cast<std::size_t>(row)] == moe_reference::kPaddingEntry)
      continue;
    const auto first_code = static_cast<std::ptrdiff_t>(row) * width;
    const auto first_scale = static_cast<std::ptrdiff_t>(row) * want.scale_cols();
    const bool same =
        std::equal(codes.begin() + first_code, codes.begin() + first_code + width, want.values.begin() + first_code) &&
        std::equal(scales.begin() + first_scale, scales.begin() + first_scale + want.scale_cols(),
                   want.scales.begin() + first_scale);
    mismatches += same ? 0 : 1;
  }
  return moe_reference::dequantize(want);
}

std::vector<std::size_t> StageRunner::valid_elements(int width) const {
  std::vector<std::size_t> elements;
  for (std::size_t row = 0; row < gpu_alignment_.sorted_entries.size(); ++row) {
    if (gpu_alignment_.sorted_entries[row] == moe_reference::kPaddingEntry) continue;
    for (int feature = 0; feature < width; ++feature)
      elements.push_back(row * static_cast<std::size_t>(width) + feature);
  }
  return elements;
}

StageErrors StageRunner::run_gemms_and_combine(gpu::GemmPath path, const moe_reference::ExpertWeights& weights,
                                               const std::vector<double>& layer_reference) {
  const std::size_t rows = gpu_alignment_.sorted_entries.size();
  const int hidden = layer_.hidden, intermediate = layer_.intermediate;
  const bool token_groups = moe_->quantizes_activations();
  StageErrors errors;
  poison(moe_->mutable_activation(), rows * intermediate * 2);
  const TokenGroupBuffers hidden_groups =
      token_groups ? poison_token_groups(moe_->hidden_codes(), moe_->hidden_scales()) : TokenGroupBuffers{};
  moe_->quantize_hidden(hidden_states_.data(), layer_.tokens);
  moe_->gate_up(hidden_states_.data(), layer_.tokens, path);
  const std::vector<double> activation =
      bf16_bits_to_double(download(moe_->activation(), rows * intermediate, stream_));
  const std::vector<float> hidden_read =
      rows_read(host_.hidden_states, hidden, hidden_groups, false, errors.token_group_mismatches);
  const std::vector<double> activation_reference =
      moe_reference::reference_gate_up_activation(hidden_read, layer_.columns(), gpu_alignment_, weights);
  errors.gate_up = relative_error(activation, activation_reference, valid_elements(intermediate));

  poison(moe_->mutable_expert_rows(), rows * hidden * 2);
  const TokenGroupBuffers activation_groups =
      token_groups ? poison_token_groups(moe_->activation_codes(), moe_->activation_scales()) : TokenGroupBuffers{};
  moe_->quantize_activation(layer_.tokens);
  moe_->down(layer_.tokens, path);
  const std::vector<double> expert_rows = bf16_bits_to_double(download(moe_->expert_rows(), rows * hidden, stream_));
  const std::vector<float> activation_read =
      rows_read(std::vector<float>(activation.begin(), activation.end()), intermediate, activation_groups, true,
                errors.token_group_mismatches);
  const std::vector<double> rows_reference = moe_reference::reference_down_projection(
      std::vector<double>(activation_read.begin(), activation_read.end()), gpu_alignment_, weights);
  errors.down = relative_error(expert_rows, rows_reference, valid_elements(hidden));

  poison(output_.data(), output_.bytes());
  moe_->combine(layer_.tokens, output_.data());
  last_output_ = bf16_bits_to_double(download(output_.data(), output_.size(), stream_));
  const std::vector<double> combine_reference =
      moe_reference::reference_combine(expert_rows, gpu_alignment_, gpu_routing_, layer_.routed_scaling_factor, hidden);
  std::vector<std::size_t> all(last_output_.size());
  for (std::size_t index = 0; index < all.size(); ++index) all[index] = index;
  errors.combine = relative_error(last_output_, combine_reference, all);
  errors.layer = layer_error(layer_reference);
  return errors;
}

double StageRunner::layer_error(const std::vector<double>& reference) const {
  std::vector<std::size_t> all(last_output_.size());
  for (std::size_t index = 0; index < all.size(); ++index) all[index] = index;
  return relative_error(last_output_, reference, all);
}

}  // namespace moeplan::bench
