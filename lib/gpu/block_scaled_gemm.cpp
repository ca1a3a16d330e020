#include "gpu/block_scaled_gemm.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "gpu/cuda_check.hpp"
#include "moe_reference/fp8_format.hpp"

namespace moeplan::gpu {
namespace {

constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

template <class Handle, cublasStatus_t (*destroy)(Handle)>
struct Destroyer {
  void operator()(Handle handle) const { destroy(handle); }
};
using Layout = std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>,
                               Destroyer<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>>;
using Preference = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>,
                                   Destroyer<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>>;

Layout column_major(cudaDataType_t type, int rows, int cols) {
  cublasLtMatrixLayout_t layout = nullptr;
  check_cublas(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                          static_cast<std::uint64_t>(cols), rows),
               "cublasLtMatrixLayoutCreate");
  return Layout(layout);
}

// Column-major view of the row-major product: output^T [n x m] = weight^T^T [n x k] . rows^T [k x m].
struct Layouts {
  Layout weight, rows, output;
  Layouts(int m, int n, int k)
      : weight(column_major(CUDA_R_8F_E4M3, k, n)),
        rows(column_major(CUDA_R_8F_E4M3, k, m)),
        output(column_major(CUDA_R_16BF, n, m)) {}
};

template <class Value>
void set(cublasLtMatmulDesc_t operation, cublasLtMatmulDescAttributes_t attribute, const Value& value) {
  check_cublas(cublasLtMatmulDescSetAttribute(operation, attribute, &value, sizeof(value)),
               "cublasLtMatmulDescSetAttribute");
}

}  // namespace

BlockScaledGemm::BlockScaledGemm() : workspace_(kWorkspaceBytes) {
  check_cublas(cublasLtCreate(&handle_), "cublasLtCreate");
  check_cublas(cublasLtMatmulDescCreate(&operation_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  set(operation_, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
  set(operation_, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  set(operation_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F);
  set(operation_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F);
}

BlockScaledGemm::~BlockScaledGemm() {
  cublasLtMatmulDescDestroy(operation_);
  cublasLtDestroy(handle_);
}

// Experts' row counts differ call by call: one heuristic query per power-of-two bucket of rows keeps the
// host's cost per GEMM near the launch's. An algorithm chosen for the bucket's largest m serves the
// smaller ones (its tiles cover partial rows; its workspace need only shrinks).
const cublasLtMatmulAlgo_t& BlockScaledGemm::algorithm(int m, int n, int k) {
  int bucket = 4;
  while (bucket < m) bucket *= 2;
  const auto key = std::make_tuple(bucket, n, k);
  if (const auto found = algorithms_.find(key); found != algorithms_.end()) return found->second;
  const Layouts layouts(bucket, n, k);
  cublasLtMatmulPreference_t raw_preference = nullptr;
  check_cublas(cublasLtMatmulPreferenceCreate(&raw_preference), "cublasLtMatmulPreferenceCreate");
  const Preference preference(raw_preference);
  check_cublas(cublasLtMatmulPreferenceSetAttribute(preference.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &kWorkspaceBytes, sizeof(kWorkspaceBytes)),
               "cublasLtMatmulPreferenceSetAttribute");
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  check_cublas(
      cublasLtMatmulAlgoGetHeuristic(handle_, operation_, layouts.weight.get(), layouts.rows.get(),
                                     layouts.output.get(), layouts.output.get(), preference.get(), 1, &result, &found),
      "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) {
    throw std::runtime_error("block-scaled FP8 GEMM: cuBLASLt has no algorithm for m " + std::to_string(bucket) +
                             ", n " + std::to_string(n) + ", k " + std::to_string(k));
  }
  return algorithms_.emplace(key, result.algo).first->second;
}

void BlockScaledGemm::multiply(const BlockScaledRows& rows, const BlockScaledWeight& weight, std::uint16_t* output,
                               int m, int n, int k, cudaStream_t stream) {
  if (m <= 0) return;
  if (m != aligned_scale_run(m) || n % moe_reference::kScaleBlock != 0 || k % moe_reference::kScaleBlock != 0) {
    throw std::invalid_argument("block-scaled FP8 GEMM: m must be a multiple of 4, n and k of 128");
  }
  // The heuristic, too, reads the scale pointers of the descriptor.
  set(operation_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, weight.scales);
  set(operation_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, rows.scales);
  const cublasLtMatmulAlgo_t& chosen = algorithm(m, n, k);
  const Layouts layouts(m, n, k);
  const float one = 1.0f, zero = 0.0f;
  check_cublas(cublasLtMatmul(handle_, operation_, &one, weight.codes, layouts.weight.get(), rows.codes,
                              layouts.rows.get(), &zero, output, layouts.output.get(), output, layouts.output.get(),
                              &chosen, workspace_.data(), kWorkspaceBytes, stream),
               "cublasLtMatmul (block-scaled FP8)");
}

}  // namespace moeplan::gpu
