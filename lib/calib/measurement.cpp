#include "calib/measurement.hpp"

#include <stdexcept>

namespace moeplan::calib {

std::string family_name(Family family) {
  switch (family) {
    case Family::collective: return "collective";
    case Family::otp: return "otp";
    case Family::gemm: return "gemm";
    case Family::moe_layer: return "moe_layer";
  }
  return "gemm";
}

Family parse_family(const std::string& name) {
  for (Family family : {Family::collective, Family::otp, Family::gemm, Family::moe_layer}) {
    if (family_name(family) == name) return family;
  }
  throw std::invalid_argument("one of collective, otp, gemm, moe_layer");
}

std::int64_t Measurement::dimension(const std::string& name) const {
  const auto found = shape.find(name);
  return found == shape.end() ? 0 : found->second;
}

}  // namespace moeplan::calib
