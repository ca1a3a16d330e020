#include "calib/build_record.hpp"

#ifndef MOEPLAN_KERNELS_FINGERPRINT
#error "lib/CMakeLists.txt defines MOEPLAN_KERNELS_FINGERPRINT for this file"
#endif

namespace moeplan::calib {

BuildRecord this_build() { return {MOEPLAN_VERSION_TEXT, MOEPLAN_KERNELS_FINGERPRINT}; }

std::string build_mismatch(const std::optional<BuildRecord>& recorded, const std::string& file) {
  const BuildRecord now = this_build();
  if (!recorded) {
    return file +
           " records no build (measured before calibrations recorded one): its kernel timings may "
           "not be this build's; re-measure with moeplan calibrate";
  }
  if (recorded->kernels == now.kernels) return "";
  return file + " was measured with kernels " + recorded->kernels.substr(0, 12) + " (moeplan " + recorded->version +
         "); this build's are " + now.kernels.substr(0, 12) + ": re-measure with moeplan calibrate";
}

}  // namespace moeplan::calib
