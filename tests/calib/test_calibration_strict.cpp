// A calibration read back is held to what a fit can produce: ordered timings, non-negative fixed times,
// measurements behind its coefficients, and a device that is exactly the scenario's GPU.
#include <doctest/doctest.h>

#include <string>

#include "calib/calibrated_models.hpp"
#include "calib/calibration_json.hpp"
#include "calibration_fixture.hpp"
#include "io/input_error.hpp"

using namespace moeplan;
using namespace moeplan::calib;

namespace {

std::string error_of(const nlohmann::json& document) { return test::calibration_error_of(document); }

// The small calibration with a MoE fit whose routing line is `routing`.
nlohmann::json with_routing(StageLine routing) {
  Calibration calibration = test::small_calibration();
  MoeFit moe;
  moe.routing = routing;
  moe.streaming = PathFit{{11e-6, 0.9, 4.0, 2.5}, {10e-6, 0.85, 3.0, 2.4}};
  calibration.coefficients.moe = moe;
  return calibration_to_json(calibration);
}

}  // namespace

TEST_CASE("timings out of order are refused: min_seconds <= seconds <= max_seconds") {
  nlohmann::json document = calibration_to_json(test::small_calibration());
  CHECK(error_of(document).empty());
  // The fixture's GEMM: 11.5 us <= 12 us <= 13 us; a minimum of 14 us is above both.
  document["measurements"][0]["min_seconds"] = 14e-6;
  CHECK(error_of(document) ==
        "cal.json: measurements[0].min_seconds: expected min_seconds <= seconds <= max_seconds, got 1.4e-05 <= "
        "1.2e-05 <= 1.3e-05");
}

TEST_CASE("a fitted fixed time below zero or past a second is refused") {
  CHECK(error_of(with_routing({5e-6, 1e-9})).empty());
  CHECK(error_of(with_routing({-5e-6, 1e-9})) ==
        "cal.json: coefficients.moe.routing.fixed_seconds: expected a number in [0, 1], got -5e-06");
  CHECK(error_of(with_routing({5e-6, 2.0})) ==
        "cal.json: coefficients.moe.routing.per_token_seconds: expected a number in [0, 1], got 2.0");
  nlohmann::json document = calibration_to_json(test::small_calibration());
  document["coefficients"]["collectives"][0]["line_latency_seconds"] = -1e-6;
  CHECK(error_of(document) ==
        "cal.json: coefficients.collectives[0].line_latency_seconds: expected a number in [0, 1], got -1e-06");
}

TEST_CASE("coefficients without a single measurement behind them are refused") {
  nlohmann::json document = calibration_to_json(test::small_calibration());
  document["measurements"] = nlohmann::json::array();
  CHECK(error_of(document) == "cal.json: measurements: expected a non-empty list");
}

TEST_CASE("the device must be the GPU itself, not a name that contains it") {
  // "H20" is inside "NVIDIA H200" as text, but the words of the name are NVIDIA and H200.
  Calibration h200 = test::small_calibration();
  CHECK_THROWS_WITH_AS(check_device_matches(h200, hardware_preset("H20", "", ""), "cal.json"),
                       "cal.json: device.name: expected a H20 as the scenario's cluster has, got 'NVIDIA H200'; pass "
                       "--force to use it anyway",
                       InputError);
  CHECK(preset_for_device("NVIDIA H20")->name == "H20");
  CHECK(preset_for_device("NVIDIA H200")->name == "H200");
  h200.device.name = "NVIDIA H20";
  CHECK_NOTHROW(check_device_matches(h200, hardware_preset("H20", "", ""), "cal.json"));
  CHECK_THROWS_AS(check_device_matches(h200, hardware_preset("H200", "", ""), "cal.json"), InputError);
}
