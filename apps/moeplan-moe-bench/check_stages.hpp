#pragma once
// Runs each device stage of one layer on poisoned outputs and compares it with the CPU
// reference fed the device's own upstream results, so each stage is judged on its own.
#include <string>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/moe_layer.hpp"
#include "host_layer.hpp"
#include "layer_case.hpp"
#include "moe_reference/alignment.hpp"
#include "moe_reference/routing.hpp"

namespace moeplan::bench {

struct RoutingComparison {
  bool passed = false;
  std::string detail;
};
using AlignmentComparison = RoutingComparison;

struct StageErrors {
  double gate_up = 0;
  double down = 0;
  double combine = 0;
  double layer = 0;
  int token_group_mismatches = 0;  // rows whose e4m3 codes or scales differ from the host's
};

// The device buffers of one GEMM's e4m3 token groups; null where the path reads bf16 rows.
struct TokenGroupBuffers {
  gpu::DeviceBuffer<std::uint8_t>* codes = nullptr;
  gpu::DeviceBuffer<float>* scales = nullptr;
};

class StageRunner {
 public:
  StageRunner(const LayerCase& layer, const HostLayer& host, const gpu::ExpertWeightsView& weights);
  ~StageRunner();
  StageRunner(const StageRunner&) = delete;
  StageRunner& operator=(const StageRunner&) = delete;

  RoutingComparison run_routing(const moe_reference::Routing& cpu);
  const moe_reference::Routing& gpu_routing() const { return gpu_routing_; }
  AlignmentComparison run_align(const moe_reference::Alignment& cpu);
  StageErrors run_gemms_and_combine(gpu::GemmPath path, const moe_reference::ExpertWeights& weights,
                                    const std::vector<double>& layer_reference);
  double layer_error(const std::vector<double>& reference) const;
  bool quantizes_activations() const { return moe_->quantizes_activations(); }

 private:
  std::vector<std::size_t> valid_elements(int width) const;
  TokenGroupBuffers poison_token_groups(gpu::DeviceBuffer<std::uint8_t>& codes, gpu::DeviceBuffer<float>& scales);
  // What a GEMM multiplied: `rows`, or with token groups their e4m3 rounding, after comparing the
  // device's codes and scales with moe_reference::quantize_token_groups bit for bit (the same float divide and
  // round-to-nearest-even); aligned_rows: padding rows are not compared.
  std::vector<float> rows_read(const std::vector<float>& rows, int width, const TokenGroupBuffers& groups,
                               bool aligned_rows, int& mismatches) const;
  void poison(void* data, std::size_t bytes);

  const LayerCase& layer_;
  const HostLayer& host_;
  cudaStream_t stream_ = nullptr;
  gpu::DeviceBuffer<std::uint16_t> hidden_states_, output_;
  gpu::DeviceBuffer<float> logits_, bias_;
  std::unique_ptr<gpu::MoeLayer> moe_;
  moe_reference::Routing gpu_routing_;
  moe_reference::Alignment gpu_alignment_;
  std::vector<double> last_output_;
};

}  // namespace moeplan::bench
