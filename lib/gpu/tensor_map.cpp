#include "gpu/tensor_map.hpp"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace moeplan::gpu {
namespace {

constexpr int kBoxBytes = 128;        // one swizzled line: the widest box a 128-byte swizzle allows
constexpr cuuint32_t kGroupRows = 8;  // rows of one half in a gate_up box

// The driver's encoder, through the runtime so that nothing links libcuda directly.
PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 found = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult status{};
    const cudaError_t error =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &status);
    if (error != cudaSuccess || status != cudaDriverEntryPointSuccess || function == nullptr) {
      throw std::runtime_error("the CUDA driver offers no cuTensorMapEncodeTiled (TMA needs CUDA 12 and sm_90)");
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return found;
}

CUtensorMapL2promotion l2_promotion(int bytes) {
  if (bytes == 0) return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  if (bytes == 256) return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  throw std::runtime_error("tensor map: an L2 promotion of " + std::to_string(bytes) + " bytes (0 or 256)");
}

}  // namespace

CUtensorMap swizzled_expert_map(const ExpertMatrices& matrices, int box_rows) {
  const auto row_bytes = static_cast<cuuint64_t>(matrices.columns) * matrices.element_bytes;
  const auto rows = static_cast<cuuint64_t>(matrices.rows);
  const cuuint64_t halves = matrices.gate_up ? 2 : 1;
  if (rows % (kGroupRows * halves) != 0 || box_rows % (kGroupRows * halves) != 0) {
    throw std::runtime_error("tensor map: " + std::to_string(matrices.rows) + " rows in boxes of " +
                             std::to_string(box_rows) + " do not split into " + std::to_string(kGroupRows * halves) +
                             "-row groups");
  }
  const cuuint64_t dims[5] = {static_cast<cuuint64_t>(matrices.columns), kGroupRows, halves,
                              rows / (kGroupRows * halves), static_cast<cuuint64_t>(matrices.experts)};
  // A single half's stride is never stepped; the expert's is a valid stand-in.
  const cuuint64_t half_stride = matrices.gate_up ? rows / 2 * row_bytes : rows * row_bytes;
  const cuuint64_t strides[4] = {row_bytes, half_stride, kGroupRows * row_bytes, rows * row_bytes};
  const cuuint32_t box[5] = {static_cast<cuuint32_t>(kBoxBytes / matrices.element_bytes), kGroupRows,
                             static_cast<cuuint32_t>(halves), static_cast<cuuint32_t>(box_rows / (kGroupRows * halves)),
                             1};
  const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
  const CUtensorMapDataType type =
      matrices.element_bytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  CUtensorMap map{};
  const CUresult result = encoder()(&map, type, 5, const_cast<void*>(matrices.base), dims, strides, box,
                                    element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                    l2_promotion(matrices.l2_promotion_bytes), CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(result)) +
                             ") for " + std::to_string(matrices.experts) + " x " + std::to_string(matrices.rows) +
                             " x " + std::to_string(matrices.columns) + " with boxes of " + std::to_string(box_rows) +
                             " rows");
  }
  return map;
}

}  // namespace moeplan::gpu
