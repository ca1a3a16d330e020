#pragma once
// The device facts a calibration file records: name, count, memory, SMs, clocks, driver, CUDA and NCCL
// versions, and the two measured ceilings (copy bandwidth, dense BF16 GEMM rate) of GPU 0.
#include "calib/calibration.hpp"

namespace moeplan::gpu {

calib::DeviceRecord inventory_devices(int count, bool with_nccl);

}  // namespace moeplan::gpu
