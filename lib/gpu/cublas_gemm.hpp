#pragma once
// Row-major GEMM through cuBLAS: the library path for large per-expert GEMMs, and the dense
// rate the roofline is measured against.
#include <cstdint>

#include <cublas_v2.h>

namespace moeplan::gpu {

class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream);
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

// output[m][n] = input[m][k] . weight[n][k], all row-major bf16, fp32 accumulation.
void gemm_rows_by_weight(cublasHandle_t handle, const std::uint16_t* input, const std::uint16_t* weight,
                         std::uint16_t* output, int m, int n, int k);

}  // namespace moeplan::gpu
