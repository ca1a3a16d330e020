#pragma once
// Every CUDA and cuBLAS call is checked; a failure throws with the call's name and the error text.
#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace moeplan::gpu {

void check_cuda(cudaError_t status, const char* what);
void check_cublas(cublasStatus_t status, const char* what);
// After a kernel launch: the launch's own error (bad configuration), not the kernel's outcome.
void check_launch(const char* kernel);

}  // namespace moeplan::gpu
