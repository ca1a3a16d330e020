#include "gpu/sweep/moe_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

#include "calib/moe_fit.hpp"
#include "gpu/cublas_gemm.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/elementwise_kernels.hpp"
#include "gpu/event_timer.hpp"
#include "gpu/moe_layer.hpp"
#include "gpu/random_fill.hpp"
#include "gpu/streaming_gemm.hpp"
#include "gpu/sweep/random_experts.hpp"
#include "moe_reference/bfloat16.hpp"
#include "moe_reference/expert_parallel.hpp"
#include "moe_reference/fp8.hpp"
#include "spec/dtype.hpp"

namespace moeplan::gpu {
namespace {

constexpr double kPathBound = 1e-2;  // moeplan-moe-bench's bound for bf16 operands
constexpr int kCheckTokens = 8;

enum class Variant { routed, fused_shared, unfused_shared };

const char* variant_name(Variant variant) {
  return variant == Variant::routed ? "routed" : variant == Variant::fused_shared ? "fused_shared" : "unfused_shared";
}

// [doc-000]: fusing needs the shared expert in the routed experts' shape.
std::vector<Variant> variants(const calib::MoeShape& shape) {
  if (shape.shared_intermediate == 0) return {Variant::routed};
  if (shape.shared_intermediate != shape.intermediate) return {Variant::unfused_shared};
  return {Variant::fused_shared, Variant::unfused_shared};
}

DeviceBuffer<float> random_floats(std::size_t count, float amplitude, std::uint64_t seed, cudaStream_t stream) {
  DeviceBuffer<float> buffer(count);
  fill_random_float(buffer.data(), static_cast<long>(count), amplitude, seed, stream);
  return buffer;
}

// The streaming kernel's row blocks as measured (the fit prices their expectation): each re-reads its
// expert's weights (calib/moe_fit.hpp).
std::int64_t aligned_blocks(const std::vector<std::int32_t>& counts) {
  std::int64_t blocks = 0;
  for (std::int32_t count : counts) blocks += divide_rounding_up(count, kStreamingBlockRows);
  return blocks;
}

// The model's own router over all its experts, timed as the layer's first stage.
struct ModelRouter {
  ModelRouter(const calib::MoeShape& shape, int max_tokens, cudaStream_t stream)
      : shape_(shape),
        logits_(random_floats(static_cast<std::size_t>(max_tokens) * shape.experts, 2.0f, 31, stream)),
        bias_(random_floats(static_cast<std::size_t>(shape.experts), 0.05f, 32, stream)),
        ids_(static_cast<std::size_t>(max_tokens) * (shape.top_k + 1)),
        weights_(ids_.size()) {}

  void launch(int tokens, bool fused, cudaStream_t stream) {
    const moe_reference::SharedFusion shared{static_cast<int>(shape_.experts), fused ? 1 : 0,
                                             shape_.routed_scaling_factor};
    const RouterOutput output{ids_.data(), weights_.data()};
    const int experts = static_cast<int>(shape_.experts), top_k = static_cast<int>(shape_.top_k);
    if (shape_.grouped_router) {
      const moe_reference::GroupedTopkConfig config{experts, top_k, static_cast<int>(shape_.groups),
                                                    static_cast<int>(shape_.topk_groups), true};
      launch_grouped_topk(logits_.data(), bias_.data(), tokens, config, shared, output, stream);
    } else {
      launch_softmax_topk(logits_.data(), tokens, {experts, top_k, true}, shared, output, stream);
    }
  }

  calib::MoeShape shape_;
  DeviceBuffer<float> logits_, bias_;
  DeviceBuffer<std::int32_t> ids_;
  DeviceBuffer<float> weights_;
};

// The unfused shared expert: w13 GEMM, SiLU-and-mul, w2 GEMM over every token (bf16 through cuBLAS).
struct SharedExpert {
  SharedExpert(const calib::MoeShape& shape, int max_tokens, cudaStream_t stream)
      : hidden_(static_cast<int>(shape.hidden)),
        intermediate_(static_cast<int>(shape.shared_intermediate)),
        w13_(static_cast<std::size_t>(2 * intermediate_) * hidden_),
        w2_(static_cast<std::size_t>(hidden_) * intermediate_),
        gate_up_(static_cast<std::size_t>(max_tokens) * 2 * intermediate_),
        activation_(static_cast<std::size_t>(max_tokens) * intermediate_),
        output_(static_cast<std::size_t>(max_tokens) * hidden_),
        rows_(static_cast<std::size_t>(max_tokens)),
        blas_(stream) {
    fill_random_bf16(w13_.data(), static_cast<long>(w13_.size()), static_cast<float>(std::sqrt(3.0 / hidden_)), 41,
                     stream);
    fill_random_bf16(w2_.data(), static_cast<long>(w2_.size()), static_cast<float>(std::sqrt(3.0 / intermediate_)), 42,
                     stream);
    std::vector<std::int32_t> identity(rows_.size());
    std::iota(identity.begin(), identity.end(), 0);
    rows_.upload(identity);
  }

  void run(const std::uint16_t* hidden_states, int tokens, cudaStream_t stream) {
    gemm_rows_by_weight(blas_.get(), hidden_states, w13_.data(), gate_up_.data(), tokens, 2 * intermediate_, hidden_);
    launch_silu_and_mul(gate_up_.data(), rows_.data(), tokens, intermediate_, activation_.data(), stream);
    gemm_rows_by_weight(blas_.get(), activation_.data(), w2_.data(), output_.data(), tokens, hidden_, intermediate_);
  }

  int hidden_, intermediate_;
  DeviceBuffer<std::uint16_t> w13_, w2_, gate_up_, activation_, output_;
  DeviceBuffer<std::int32_t> rows_;
  CublasHandle blas_;
};

double relative_error(const DeviceBuffer<std::uint16_t>& got_buffer, const DeviceBuffer<std::uint16_t>& want_buffer,
                      std::size_t count) {
  const std::vector<std::uint16_t> got = got_buffer.download(), want = want_buffer.download();
  double difference = 0, norm = 0;
  for (std::size_t index = 0; index < count; ++index) {
    const double delta = moe_reference::bf16_value(got[index]) - moe_reference::bf16_value(want[index]);
    difference += delta * delta;
    norm += double(moe_reference::bf16_value(want[index])) * moe_reference::bf16_value(want[index]);
  }
  const double error = std::sqrt(difference / norm);
  return std::isnan(error) ? INFINITY : error;
}

class SliceRun {
 public:
  SliceRun(const calib::MoeShape& shape, int local_experts, Variant variant, int max_tokens, cudaStream_t stream)
      : shape_(shape),
        local_(local_experts),
        variant_(variant),
        top_k_(std::min(static_cast<int>(shape.top_k), local_experts)),
        stream_(stream),
        parallel_{local_experts, 0, variant == Variant::fused_shared ? 1 : 0, 1, 0},
        weights_(random_experts(moe_reference::local_expert_count(parallel_), static_cast<int>(shape.hidden),
                                static_cast<int>(shape.intermediate),
                                shape.fp8 ? WeightFormat::fp8_block_scaled : WeightFormat::bf16, 11, stream)),
        hidden_states_(static_cast<std::size_t>(max_tokens) * shape.hidden),
        output_(hidden_states_.size()),
        reference_(hidden_states_.size()),
        logits_(random_floats(static_cast<std::size_t>(max_tokens) * local_experts, 2.0f, 23, stream)),
        layer_({top_k_ + parallel_.fused_shared, moe_reference::global_to_local_map(parallel_),
                shape.routed_scaling_factor},
               max_tokens, weights_.view, stream) {
    fill_random_bf16(hidden_states_.data(), static_cast<long>(hidden_states_.size()), 1.0f, 21, stream);
    if (variant == Variant::unfused_shared) shared_ = std::make_unique<SharedExpert>(shape, max_tokens, stream);
  }

  // A balanced EP dispatch: each token sends top_k rows to distinct local slots, uniformly at random.
  void dispatch(int tokens) {
    const moe_reference::SharedFusion shared{local_, parallel_.fused_shared, shape_.routed_scaling_factor};
    launch_softmax_topk(logits_.data(), tokens, {local_, top_k_, true}, shared, layer_.router_output(), stream_);
  }

  void check() {
    dispatch(kCheckTokens);
    layer_.align(kCheckTokens);
    GemmPath paths[] = {GemmPath::library, GemmPath::streaming};
    DeviceBuffer<std::uint16_t>* outputs[] = {&reference_, &output_};
    for (int path = 0; path < 2; ++path) {
      outputs[path]->fill_bytes(0xFF, stream_);
      layer_.quantize_hidden(hidden_states_.data(), kCheckTokens);
      layer_.gate_up(hidden_states_.data(), kCheckTokens, paths[path]);
      layer_.quantize_activation(kCheckTokens);
      layer_.down(kCheckTokens, paths[path]);
      layer_.combine(kCheckTokens, outputs[path]->data());
    }
    check_cuda(cudaStreamSynchronize(stream_), "MoE check");
    const double error = relative_error(output_, reference_, static_cast<std::size_t>(kCheckTokens) * shape_.hidden);
    // e4m3 weights: both paths round the activation to e4m3 token groups, but from gate-up sums taken in
    // another order, so a code can land one e4m3 step apart.
    const double bound = shape_.fp8 ? moe_reference::kE4m3LayerBound : kPathBound;
    if (!(error <= bound)) {
      throw std::runtime_error("check failed: MoE layer E_local " + std::to_string(local_) + " " +
                               variant_name(variant_) + ": streaming and cuBLAS paths differ by " +
                               std::to_string(error));
    }
  }

  calib::Measurement time_point(int tokens, ModelRouter& router) {
    const bool fused = variant_ == Variant::fused_shared;
    calib::Measurement measurement;
    measurement.stages["routing"] =
        time_on_stream([&] { router.launch(tokens, fused, stream_); }, stream_).median_seconds;
    dispatch(tokens);
    measurement.stages["align"] = time_on_stream([&] { layer_.align(tokens); }, stream_).median_seconds;
    const GemmPath path = layer_.choose_path(tokens);
    if (layer_.quantizes_activations()) {
      measurement.stages["quantize_hidden"] =
          time_on_stream([&] { layer_.quantize_hidden(hidden_states_.data(), tokens); }, stream_).median_seconds;
    }
    measurement.stages["gate_up"] =
        time_on_stream([&] { layer_.gate_up(hidden_states_.data(), tokens, path); }, stream_).median_seconds;
    if (layer_.quantizes_activations()) {
      measurement.stages["quantize_activation"] =
          time_on_stream([&] { layer_.quantize_activation(tokens); }, stream_).median_seconds;
    }
    measurement.stages["down"] = time_on_stream([&] { layer_.down(tokens, path); }, stream_).median_seconds;
    measurement.stages["combine"] =
        time_on_stream([&] { layer_.combine(tokens, output_.data()); }, stream_).median_seconds;
    if (shared_) {
      measurement.stages["shared_expert"] =
          time_on_stream([&] { shared_->run(hidden_states_.data(), tokens, stream_); }, stream_).median_seconds;
    }
    const Timing whole = time_on_stream(
        [&] {
          router.launch(tokens, fused, stream_);
          layer_.forward(hidden_states_.data(), tokens, output_.data());
          if (shared_) shared_->run(hidden_states_.data(), tokens, stream_);
        },
        stream_);
    fill_record(measurement, tokens, path, whole);
    return measurement;
  }

 private:
  void fill_record(calib::Measurement& measurement, int tokens, GemmPath path, const Timing& whole) {
    std::vector<std::int32_t> counts(static_cast<std::size_t>(weights_.view.num_experts));
    check_cuda(cudaMemcpyAsync(counts.data(), layer_.alignment().expert_counts, counts.size() * 4,
                               cudaMemcpyDeviceToHost, stream_),
               "read counts");
    check_cuda(cudaStreamSynchronize(stream_), "read counts");
    measurement.family = calib::Family::moe_layer;
    measurement.kind = variant_name(variant_);
    measurement.label = path == GemmPath::streaming ? "streaming" : "cublas";
    measurement.dtype = shape_.fp8 ? "fp8_e4m3" : "bf16";
    measurement.shape = {
        {"tokens", tokens},
        {"local_experts", local_},
        {"top_k", top_k_},
        {"columns", layer_.columns()},
        {"rows", std::accumulate(counts.begin(), counts.end(), std::int64_t{0})},
        {"active_experts", std::count_if(counts.begin(), counts.end(), [](int count) { return count > 0; })},
        {"blocks", aligned_blocks(counts)},
        {"hidden", shape_.hidden},
        {"intermediate", shape_.intermediate},
        {"shared_intermediate", shared_ ? shape_.shared_intermediate : 0},
        {"riding_rows", path == GemmPath::streaming && shape_.fp8 ? kRidingRows : 0}};
    const ExpertStageWork work = calib::grouped_work(measurement, calib::measured_path(measurement));
    const ExpertStageWork shared = calib::shared_work(measurement);
    measurement.flops = work.gate_up.flops + work.down.flops + shared.gate_up.flops + shared.down.flops;
    measurement.bytes =
        work.gate_up.bytes + work.down.bytes + (shared_ ? shared.gate_up.bytes + shared.down.bytes : 0.0);
    measurement.seconds = whole.median_seconds;
    measurement.min_seconds = whole.min_seconds;
    measurement.max_seconds = whole.max_seconds;
  }

  calib::MoeShape shape_;
  int local_;
  Variant variant_;
  int top_k_;
  cudaStream_t stream_;
  moe_reference::ExpertParallelConfig parallel_;
  RandomExperts weights_;
  DeviceBuffer<std::uint16_t> hidden_states_, output_, reference_;
  DeviceBuffer<float> logits_;
  MoeLayer layer_;
  std::unique_ptr<SharedExpert> shared_;
};

}  // namespace

void sweep_moe_layers(const calib::MoeShape& shape, const std::vector<std::int64_t>& local_experts,
                      const std::vector<std::int64_t>& tokens, SweepContext& context) {
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  const int max_tokens = static_cast<int>(*std::max_element(tokens.begin(), tokens.end()));
  {
    ModelRouter router(shape, max_tokens, stream);
    for (std::int64_t local : local_experts) {
      for (Variant variant : variants(shape)) {
        if (context.stopped()) break;
        context.begin_stage("MoE layer, E_local " + std::to_string(local) + ", " + variant_name(variant));
        SliceRun run(shape, static_cast<int>(local), variant, max_tokens, stream);
        run.check();
        for (std::int64_t count : tokens) {
          if (context.stopped()) break;
          context.record(run.time_point(static_cast<int>(count), router));
        }
      }
    }
  }
  cudaStreamDestroy(stream);
}

}  // namespace moeplan::gpu
