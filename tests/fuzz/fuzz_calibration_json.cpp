// Calibration files: a calibration (and the models built from it) or InputError, for any bytes.
#include "calib/calibrated_models.hpp"
#include "calib/calibration_json.hpp"
#include "fuzz_input.hpp"
#include "io/input_error.hpp"
#include "spec/hardware.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const moeplan::Hardware hardware = moeplan::hardware_preset("H200", "fuzz", "gpu");
  try {
    const auto path = moeplan::fuzz::write_input(data, size, ".json");
    const moeplan::calib::Calibration calibration = moeplan::calib::read_calibration(path);
    moeplan::calib::calibrated_models(calibration, hardware, path);
  } catch (const moeplan::InputError&) {}
  return 0;
}
