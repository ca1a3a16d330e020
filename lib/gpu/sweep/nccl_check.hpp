#pragma once
// Every NCCL call is checked; a failure throws with the call's name and NCCL's error text.
#include <nccl.h>

namespace moeplan::gpu {

void check_nccl(ncclResult_t status, const char* what);

}  // namespace moeplan::gpu
