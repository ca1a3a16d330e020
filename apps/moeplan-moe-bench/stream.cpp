#include "stream.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/weight_stream.hpp"
#include "io/atomic_file.hpp"
#include "sweep.hpp"
#include "sweep_models.hpp"

namespace moeplan::bench {
namespace {

struct NamedLayout {
  const char* name;
  gpu::WeightStreamLayout layout;
};

// The streaming GEMM's staging at 64 token rows (gpu/streaming_stage.cuh: e4m3 paired warpgroups, four
// buffers, two CTAs an SM; bf16 one warpgroup, two buffers, three CTAs an SM), each with and without
// the 256-byte promotion, and e4m3 staged two lines a row.
const std::vector<NamedLayout>& layouts() {
  static const std::vector<NamedLayout> named = {
      {"e4m3 kernel, promoted", {128, 1, 4, 2, 256}},    {"e4m3 kernel, unpromoted", {128, 1, 4, 2, 0}},
      {"e4m3 two lines, unpromoted", {128, 2, 3, 2, 0}}, {"bf16 kernel, promoted", {64, 2, 2, 3, 256}},
      {"bf16 kernel, unpromoted", {64, 2, 2, 3, 0}},
  };
  return named;
}

struct StreamMatrix {
  std::string model, matrix;
  int experts = 0, rows = 0, columns = 0;
};

// Each model's smallest EP slice (routed and fused shared slots): its gate-up [2I][H] and down [H][I].
std::vector<StreamMatrix> stream_matrices() {
  std::vector<StreamMatrix> matrices;
  for (const SweepModel& model : sweep_models()) {
    const LayerCase rank = rank_layer(model, model.local_routed.front(), 1);
    matrices.push_back({model.full.name, "gate_up", rank.local_experts(), 2 * rank.intermediate, rank.hidden});
    matrices.push_back({model.full.name, "down", rank.local_experts(), rank.hidden, rank.intermediate});
  }
  return matrices;
}

}  // namespace

int run_stream(const StreamOptions& options) {
  cudaStream_t stream = nullptr;
  gpu::check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  const gpu::DeviceFacts facts = gpu::read_device_facts();
  const gpu::Ceilings ceilings = gpu::measure_ceilings(stream);
  std::printf("%s: copy %.2f TB/s\n", facts.name.c_str(), ceilings.copy_bytes_per_second / 1e12);
  const std::vector<StreamMatrix> matrices = stream_matrices();
  long most_bytes = 0;
  for (const StreamMatrix& matrix : matrices) {
    most_bytes = std::max(most_bytes, 2L * matrix.experts * matrix.rows * matrix.columns);
  }
  gpu::DeviceBuffer<std::uint8_t> weights(static_cast<std::size_t>(most_bytes));
  weights.fill_bytes(0x3C, stream);
  nlohmann::json points = nlohmann::json::array();
  for (const StreamMatrix& matrix : matrices) {
    for (const int element_bytes : {1, 2}) {
      const gpu::ExpertMatrices bytes{weights.data(), matrix.experts, matrix.rows, matrix.columns * element_bytes, 1};
      const double total = static_cast<double>(matrix.experts) * matrix.rows * bytes.columns;
      for (const NamedLayout& named : layouts()) {
        const double seconds = gpu::time_weight_stream(bytes, named.layout, stream);
        const double fraction = total / seconds / ceilings.copy_bytes_per_second;
        std::printf("%-16s %-7s %d B  %-28s %8.1f us  %.3f of copy\n", matrix.model.c_str(), matrix.matrix.c_str(),
                    element_bytes, named.name, seconds * 1e6, fraction);
        points.push_back({{"model", matrix.model},
                          {"matrix", matrix.matrix},
                          {"experts", matrix.experts},
                          {"rows", matrix.rows},
                          {"row_bytes", bytes.columns},
                          {"element_bytes", element_bytes},
                          {"layout", named.name},
                          {"seconds", seconds},
                          {"copy_bandwidth_fraction", fraction}});
      }
    }
  }
  nlohmann::json layout_records = nlohmann::json::array();
  for (const NamedLayout& named : layouts()) {
    const gpu::WeightStreamLayout& layout = named.layout;
    layout_records.push_back({{"name", named.name},
                              {"box_rows", layout.box_rows},
                              {"lines", layout.lines},
                              {"buffers", layout.buffers},
                              {"ctas_per_sm", layout.ctas_per_sm},
                              {"l2_promotion_bytes", layout.l2_promotion_bytes}});
  }
  const nlohmann::json result = {
      {"schema", "moeplan.weight_stream.v1"},
      {"command", options.command},
      {"device", device_record(facts, ceilings)},
      {"measure",
       "every row of the matrix streamed once by TMA boxes into a ring of buffers freed as they land, "
       "one tile of box_rows rows a CTA; fraction = bytes / time / copy bandwidth (read + written)"},
      {"layouts", layout_records},
      {"points", points}};
  write_file_atomically(options.output_path, result.dump(1));
  cudaStreamDestroy(stream);
  return 0;
}

}  // namespace moeplan::bench
