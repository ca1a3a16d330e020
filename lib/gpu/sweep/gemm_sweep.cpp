#include "gpu/sweep/gemm_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "gpu/cublas_gemm.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/event_timer.hpp"
#include "gpu/random_fill.hpp"
#include "moe_reference/bfloat16.hpp"

namespace moeplan::gpu {
namespace {

constexpr std::size_t kElementBytes = 2;
constexpr double kRotatedBytes = 256.0 * (1 << 20);  // several times H100/H200's 50 MB L2
constexpr int kMaxCopies = 8;
constexpr int kSamples = 32;
constexpr double kCheckBound = 1e-2;  // bf16 operands and output, fp32 accumulation

std::vector<float> download_floats(const std::uint16_t* device, std::size_t count) {
  std::vector<std::uint16_t> bits(count);
  check_cuda(cudaMemcpy(bits.data(), device, count * kElementBytes, cudaMemcpyDeviceToHost), "download");
  std::vector<float> values(count);
  std::transform(bits.begin(), bits.end(), values.begin(), moe_reference::bf16_value);
  return values;
}

// Relative error of sampled outputs against float64 dot products of the same bf16 operands.
double sampled_error(const std::uint16_t* input, const std::uint16_t* weight, const std::uint16_t* output, int m, int n,
                     int k) {
  const std::vector<float> inputs = download_floats(input, static_cast<std::size_t>(m) * k);
  const std::vector<float> outputs = download_floats(output, static_cast<std::size_t>(m) * n);
  double difference = 0, norm = 0;
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int sample = 0; sample < kSamples; ++sample) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int row = static_cast<int>((state >> 33) % static_cast<std::uint64_t>(m));
    const int column = static_cast<int>((state >> 17) % static_cast<std::uint64_t>(n));
    const std::vector<float> weights =
        download_floats(weight + static_cast<std::size_t>(column) * k, static_cast<std::size_t>(k));
    double want = 0;
    for (int index = 0; index < k; ++index)
      want += double(inputs[static_cast<std::size_t>(row) * k + index]) * weights[static_cast<std::size_t>(index)];
    const double got = outputs[static_cast<std::size_t>(row) * n + column];
    difference += (got - want) * (got - want);
    norm += want * want;
  }
  const double error = std::sqrt(difference / norm);
  return std::isnan(error) ? INFINITY : error;
}

calib::Measurement gemm_record(const calib::GemmShape& shape, std::int64_t m, const Timing& timing) {
  const double rows = static_cast<double>(m), n = static_cast<double>(shape.n), k = static_cast<double>(shape.k);
  calib::Measurement measurement;
  measurement.family = calib::Family::gemm;
  measurement.kind = shape.label.substr(0, shape.label.find('/'));
  measurement.label = shape.label;
  measurement.shape = {{"m", m}, {"n", shape.n}, {"k", shape.k}};
  // [moeplan-kernel-targets]: the weight read once, activations in and out.
  measurement.bytes = kElementBytes * (n * k + rows * (n + k));
  measurement.flops = 2.0 * rows * n * k;
  measurement.seconds = timing.median_seconds;
  measurement.min_seconds = timing.min_seconds;
  measurement.max_seconds = timing.max_seconds;
  return measurement;
}

void sweep_shape(const calib::GemmShape& shape, const std::vector<std::int64_t>& rows, CublasHandle& blas,
                 cudaStream_t stream, SweepContext& context) {
  const auto n = static_cast<int>(shape.n), k = static_cast<int>(shape.k);
  const std::size_t weight_elements = static_cast<std::size_t>(n) * k;
  const int copies =
      std::clamp(static_cast<int>(std::ceil(kRotatedBytes / (weight_elements * kElementBytes))), 1, kMaxCopies);
  const auto max_rows = static_cast<int>(*std::max_element(rows.begin(), rows.end()));
  std::vector<DeviceBuffer<std::uint16_t>> weights;
  for (int copy = 0; copy < copies; ++copy) {
    weights.emplace_back(weight_elements);
    fill_random_bf16(weights.back().data(), static_cast<long>(weight_elements), static_cast<float>(std::sqrt(3.0 / k)),
                     500 + copy, stream);
  }
  DeviceBuffer<std::uint16_t> input(static_cast<std::size_t>(max_rows) * k),
      output(static_cast<std::size_t>(max_rows) * n);
  fill_random_bf16(input.data(), static_cast<long>(input.size()), 1.0f, 600, stream);
  const int check_rows = std::min(max_rows, 16);
  output.fill_bytes(0xFF, stream);
  gemm_rows_by_weight(blas.get(), input.data(), weights[0].data(), output.data(), check_rows, n, k);
  check_cuda(cudaStreamSynchronize(stream), "gemm check");
  const double error = sampled_error(input.data(), weights[0].data(), output.data(), check_rows, n, k);
  if (!(error <= kCheckBound)) {
    throw std::runtime_error("check failed: GEMM " + shape.label + " [" + std::to_string(n) + " x " +
                             std::to_string(k) + "]: relative error " + std::to_string(error) +
                             " against the float64 reference");
  }
  for (std::int64_t m : rows) {
    if (context.stopped()) return;
    int next = 0;
    const Timing timing = time_on_stream(
        [&] {
          gemm_rows_by_weight(blas.get(), input.data(), weights[static_cast<std::size_t>(next)].data(), output.data(),
                              static_cast<int>(m), n, k);
          next = (next + 1) % copies;
        },
        stream);
    context.record(gemm_record(shape, m, timing));
  }
}

}  // namespace

void sweep_gemms(const std::vector<calib::GemmShape>& shapes, const std::vector<std::int64_t>& rows,
                 SweepContext& context) {
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  {
    CublasHandle blas(stream);
    context.begin_stage("dense GEMMs");
    for (const calib::GemmShape& shape : shapes) {
      if (context.stopped()) break;
      sweep_shape(shape, rows, blas, stream, context);
    }
  }
  cudaStreamDestroy(stream);
}

}  // namespace moeplan::gpu
