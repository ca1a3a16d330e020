#include "gpu/sweep/otp_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "gpu/cublas_gemm.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/random_fill.hpp"
#include "gpu/sweep/group_timing.hpp"
#include "gpu/sweep/nccl_check.hpp"
#include "gpu/transpose_kernel.hpp"
#include "moe_reference/bfloat16.hpp"

namespace moeplan::gpu {
namespace {

constexpr std::size_t kElementBytes = 2;
constexpr std::size_t kWorkspaceBytes = 32u << 20;  // cuBLAS allocates nothing while a graph is captured
constexpr double kCheckBound = 2e-2;                // bf16 operands; X1 also sums bf16 partials in the reduce-scatter
constexpr int kCapturedOperations = 8;

struct RankState {
  DeviceBuffer<std::uint16_t> input, weight, weight_columns, staging, exchanged, product, output;
  DeviceBuffer<std::uint8_t> workspace;
  std::unique_ptr<CublasHandle> blas;
};

// Sizes for the largest batch; X1 and X2 share the buffers.
class OtpRun {
 public:
  OtpRun(const NcclGroup& group, const calib::OtpShape& shape, std::int64_t max_tokens);
  void x1(std::size_t tokens);
  void x2(std::size_t tokens);
  double check(std::size_t tokens);  // worst rank's relative error against the single-GPU GEMM

 private:
  double rank_error(int rank, std::size_t tokens);

  const NcclGroup& group_;
  std::size_t ranks_, h1_, h2_;
  std::vector<RankState> states_;
};

OtpRun::OtpRun(const NcclGroup& group, const calib::OtpShape& shape, std::int64_t max_tokens)
    : group_(group),
      ranks_(static_cast<std::size_t>(group.size())),
      h1_(static_cast<std::size_t>(shape.input_width)),
      h2_(static_cast<std::size_t>(shape.output_width)) {
  const auto tokens = static_cast<std::size_t>(max_tokens);
  const std::size_t batch = tokens * ranks_, width = h1_ / ranks_;
  states_.resize(ranks_);
  for (int local_rank : group.local_ranks()) {
    const auto rank = static_cast<std::size_t>(local_rank);
    check_cuda(cudaSetDevice(group.device(local_rank)), "cudaSetDevice");
    cudaStream_t stream = group.stream(local_rank);
    RankState& state = states_[rank];
    state.input = DeviceBuffer<std::uint16_t>(tokens * h1_);
    state.weight = DeviceBuffer<std::uint16_t>(h2_ * h1_);
    state.weight_columns = DeviceBuffer<std::uint16_t>(h2_ * width);
    state.staging = DeviceBuffer<std::uint16_t>(batch * h1_);
    state.exchanged = DeviceBuffer<std::uint16_t>(tokens * std::max(h1_, h2_));
    state.product = DeviceBuffer<std::uint16_t>(batch * h2_);
    state.output = DeviceBuffer<std::uint16_t>(tokens * h2_);
    state.workspace = DeviceBuffer<std::uint8_t>(kWorkspaceBytes);
    state.output.fill_bytes(0xFF, stream);  // NaN: an element no path writes fails the check
    fill_random_bf16(state.input.data(), static_cast<long>(state.input.size()), 1.0f, 300 + rank, stream);
    // The same seed on every GPU: one weight, identical everywhere, as a checkpoint loads it.
    fill_random_bf16(state.weight.data(), static_cast<long>(state.weight.size()),
                     static_cast<float>(std::sqrt(3.0 / static_cast<double>(h1_))), 400, stream);
    // X1's row-split slice: columns rank x h1/p .. of the [h2, h1] weight, made contiguous.
    check_cuda(cudaMemcpy2DAsync(state.weight_columns.data(), width * kElementBytes, state.weight.data() + rank * width,
                                 h1_ * kElementBytes, width * kElementBytes, h2_, cudaMemcpyDeviceToDevice, stream),
               "weight slice");
    state.blas = std::make_unique<CublasHandle>(stream);
    check_cublas(cublasSetWorkspace(state.blas->get(), state.workspace.data(), kWorkspaceBytes), "cublasSetWorkspace");
  }
  group.devices().synchronize();
}

void OtpRun::x1(std::size_t tokens) {
  const std::size_t width = h1_ / ranks_;
  for (int rank : group_.local_ranks()) {
    check_cuda(cudaSetDevice(group_.device(rank)), "cudaSetDevice");
    RankState& state = states_[static_cast<std::size_t>(rank)];
    // [doc-004] transpose: [bs][p][h1/p] to [p][bs][h1/p], destination j's columns contiguous for the exchange.
    launch_swap_leading_axes(state.input.data(), static_cast<int>(tokens), static_cast<int>(ranks_),
                             static_cast<int>(width), state.staging.data(), group_.stream(rank));
  }
  group_.on_every_rank([&](int rank) {
    RankState& state = states_[static_cast<std::size_t>(rank)];
    check_nccl(ncclAlltoAll(state.staging.data(), state.exchanged.data(), tokens * width, ncclBfloat16,
                            group_.comm(rank), group_.stream(rank)),
               "X1 all-to-all");
  });
  for (int rank : group_.local_ranks()) {
    check_cuda(cudaSetDevice(group_.device(rank)), "cudaSetDevice");
    RankState& state = states_[static_cast<std::size_t>(rank)];
    gemm_rows_by_weight(state.blas->get(), state.exchanged.data(), state.weight_columns.data(), state.product.data(),
                        static_cast<int>(tokens * ranks_), static_cast<int>(h2_), static_cast<int>(width));
  }
  group_.on_every_rank([&](int rank) {
    RankState& state = states_[static_cast<std::size_t>(rank)];
    check_nccl(ncclReduceScatter(state.product.data(), state.output.data(), tokens * h2_, ncclBfloat16, ncclSum,
                                 group_.comm(rank), group_.stream(rank)),
               "X1 reduce-scatter");
  });
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
}

void OtpRun::x2(std::size_t tokens) {
  const std::size_t width = h2_ / ranks_;
  group_.on_every_rank([&](int rank) {
    RankState& state = states_[static_cast<std::size_t>(rank)];
    check_nccl(ncclAllGather(state.input.data(), state.staging.data(), tokens * h1_, ncclBfloat16, group_.comm(rank),
                             group_.stream(rank)),
               "X2 all-gather");
  });
  for (int rank : group_.local_ranks()) {
    check_cuda(cudaSetDevice(group_.device(rank)), "cudaSetDevice");
    RankState& state = states_[static_cast<std::size_t>(rank)];
    // Column split: this rank's h2/p output features, rows rank x h2/p .. of the weight.
    gemm_rows_by_weight(state.blas->get(), state.staging.data(),
                        state.weight.data() + static_cast<std::size_t>(rank) * width * h1_, state.product.data(),
                        static_cast<int>(tokens * ranks_), static_cast<int>(width), static_cast<int>(h1_));
  }
  group_.on_every_rank([&](int rank) {
    RankState& state = states_[static_cast<std::size_t>(rank)];
    check_nccl(ncclAlltoAll(state.product.data(), state.exchanged.data(), tokens * width, ncclBfloat16,
                            group_.comm(rank), group_.stream(rank)),
               "X2 all-to-all");
  });
  for (int rank : group_.local_ranks()) {
    check_cuda(cudaSetDevice(group_.device(rank)), "cudaSetDevice");
    RankState& state = states_[static_cast<std::size_t>(rank)];
    // Each source's h2/p columns back into place: [p][bs][h2/p] to the [bs][p][h2/p] = [bs, h2] output.
    launch_swap_leading_axes(state.exchanged.data(), static_cast<int>(ranks_), static_cast<int>(tokens),
                             static_cast<int>(width), state.output.data(), group_.stream(rank));
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
}

double OtpRun::check(std::size_t tokens) {
  group_.devices().synchronize();
  double worst = 0;
  for (int rank : group_.local_ranks()) {
    const double error = rank_error(rank, tokens);
    worst = std::isnan(error) ? INFINITY : std::max(worst, error);
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  group_.devices().synchronize();
  return group_.host().maximum(worst);
}

// A rank's output (its own tokens again, as the paths of [doc-004] return them) against one GPU's GEMM of its
// input; the output is poisoned again for the next check.
double OtpRun::rank_error(int rank, std::size_t tokens) {
  RankState& state = states_[static_cast<std::size_t>(rank)];
  check_cuda(cudaSetDevice(group_.device(rank)), "cudaSetDevice");
  DeviceBuffer<std::uint16_t> reference(tokens * h2_);
  gemm_rows_by_weight(state.blas->get(), state.input.data(), state.weight.data(), reference.data(),
                      static_cast<int>(tokens), static_cast<int>(h2_), static_cast<int>(h1_));
  check_cuda(cudaStreamSynchronize(group_.stream(rank)), "reference GEMM");
  const std::vector<std::uint16_t> expected = reference.download();
  std::vector<std::uint16_t> got(tokens * h2_);
  check_cuda(cudaMemcpy(got.data(), state.output.data(), got.size() * kElementBytes, cudaMemcpyDeviceToHost),
             "download");
  double difference = 0, norm = 0;
  for (std::size_t index = 0; index < got.size(); ++index) {
    const double want = moe_reference::bf16_value(expected[index]);
    const double delta = moe_reference::bf16_value(got[index]) - want;
    difference += delta * delta;
    norm += want * want;
  }
  state.output.fill_bytes(0xFF, group_.stream(rank));
  return std::sqrt(difference / norm);
}

calib::Measurement otp_record(const calib::OtpShape& shape, const char* scheme, int ranks, std::int64_t tokens,
                              const Timing& timing) {
  const double p = ranks, b = static_cast<double>(tokens), h1 = static_cast<double>(shape.input_width),
               h2 = static_cast<double>(shape.output_width);
  calib::Measurement measurement;
  measurement.family = calib::Family::otp;
  measurement.kind = scheme;
  measurement.label = shape.label;
  measurement.mode = "graph";
  measurement.ranks = ranks;
  measurement.shape = {{"tokens", tokens}, {"input_width", shape.input_width}, {"output_width", shape.output_width}};
  // [doc-004]: X1 = bs(h1(OTP-1)/OTP + h2(OTP-1)), X2 = bs(h1(OTP-1) + h2(OTP-1)/OTP) elements per rank.
  const double elements =
      std::string(scheme) == "x1" ? b * (h1 * (p - 1) / p + h2 * (p - 1)) : b * (h1 * (p - 1) + h2 * (p - 1) / p);
  measurement.bytes = elements * kElementBytes;
  measurement.flops = 2.0 * p * b * h1 * h2 / p;
  measurement.seconds = timing.median_seconds;
  measurement.min_seconds = timing.min_seconds;
  measurement.max_seconds = timing.max_seconds;
  return measurement;
}

}  // namespace

void sweep_otp(const NcclGroup& group, const std::vector<calib::OtpShape>& shapes,
               const std::vector<std::int64_t>& tokens_per_rank, SweepContext& context) {
  const int ranks = group.size();
  const TimingPlan plan{2, 5, 2e-3, 50};
  for (const calib::OtpShape& shape : shapes) {
    // Each rank's slice of both widths must be whole and a width the reorder kernel accepts.
    const auto sliceable = [ranks](std::int64_t width) {
      return width % ranks == 0 && (width / ranks) % kSwapWidthMultiple == 0;
    };
    if (!sliceable(shape.input_width) || !sliceable(shape.output_width)) {
      context.skip(tokens_per_rank.size() * 2);
      continue;
    }
    context.begin_stage("OTP " + shape.label + " on " + std::to_string(ranks) + " GPUs");
    OtpRun run(group, shape, *std::max_element(tokens_per_rank.begin(), tokens_per_rank.end()));
    for (std::int64_t tokens : tokens_per_rank) {
      if (group.any(context.stopped())) return;
      const auto count = static_cast<std::size_t>(tokens);
      for (const char* scheme : {"x1", "x2"}) {
        const bool first = std::string(scheme) == "x1";
        const auto once = [&] { first ? run.x1(count) : run.x2(count); };
        once();
        const double error = run.check(count);
        if (!(error <= kCheckBound)) {
          throw std::runtime_error("check failed: OTP " + std::string(scheme) + " " + shape.label + " on " +
                                   std::to_string(ranks) + " GPUs at " + std::to_string(tokens) +
                                   " tokens per rank: relative error " + std::to_string(error) +
                                   " against one GPU's GEMM");
        }
        const GroupGraph graph(group.devices(), [&] {
          for (int operation = 0; operation < kCapturedOperations; ++operation) once();
        });
        const Timing timing = time_group([&] { graph.launch(); }, group, plan, kCapturedOperations);
        context.record(otp_record(shape, scheme, ranks, tokens, timing));
      }
    }
  }
}

}  // namespace moeplan::gpu
