#pragma once
// The build a calibration was measured with: moeplan's version and a fingerprint of the GPU kernels
// (lib/gpu) it timed. A calibration describes those kernels; once they change, its MoE and GEMM
// timings describe code that no longer runs.
#include <optional>
#include <string>

namespace moeplan::calib {

struct BuildRecord {
  std::string version;  // moeplan's project version
  std::string kernels;  // SHA-256 over lib/gpu's sources, as CMake computed it at configure time
};

// The build running now.
BuildRecord this_build();

// What to tell a user of calibration `file` that recorded `recorded` (none: measured before builds
// were recorded): empty when its kernels are this build's.
std::string build_mismatch(const std::optional<BuildRecord>& recorded, const std::string& file);

}  // namespace moeplan::calib
