#include "gpu/cublas_gemm.hpp"

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {

CublasHandle::CublasHandle(cudaStream_t stream) {
  check_cublas(cublasCreate(&handle_), "cublasCreate");
  check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
}

CublasHandle::~CublasHandle() { cublasDestroy(handle_); }

void gemm_rows_by_weight(cublasHandle_t handle, const std::uint16_t* input, const std::uint16_t* weight,
                         std::uint16_t* output, int m, int n, int k) {
  const float one = 1.0f, zero = 0.0f;
  // Column-major view: output^T [n x m] = weight [n x k] (stored as k x n, transposed) . input^T.
  check_cublas(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, weight, CUDA_R_16BF, k, input, CUDA_R_16BF,
                            k, &zero, output, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
}

}  // namespace moeplan::gpu
