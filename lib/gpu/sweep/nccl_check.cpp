#include "gpu/sweep/nccl_check.hpp"

#include <stdexcept>
#include <string>

namespace moeplan::gpu {

void check_nccl(ncclResult_t status, const char* what) {
  if (status != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(status));
}

}  // namespace moeplan::gpu
