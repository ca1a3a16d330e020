#include "gpu/cuda_check.hpp"

#include <stdexcept>
#include <string>

namespace moeplan::gpu {

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(status)));
  }
}

void check_launch(const char* kernel) { check_cuda(cudaGetLastError(), kernel); }

}  // namespace moeplan::gpu
