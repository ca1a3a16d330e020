#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <filesystem>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "calib/calibrated_models.hpp"
#include "calib/calibration_json.hpp"
#include "calibration_fixture.hpp"
#include "io/input_error.hpp"

using namespace moeplan;
using namespace moeplan::calib;

namespace {

std::string error_of(const nlohmann::json& document) { return test::calibration_error_of(document); }

// A small calibration with a streaming MoE fit, as JSON; adjust sets the fit's other fields first.
nlohmann::json streaming_moe_document(const std::function<void(MoeFit&)>& adjust) {
  Calibration calibration = test::small_calibration();
  MoeFit moe;
  moe.streaming = PathFit{{11e-6, 0.9, 4.0, 2.5}, {10e-6, 0.85, 3.0, 2.4}};
  adjust(moe);
  calibration.coefficients.moe = moe;
  return calibration_to_json(calibration);
}

}  // namespace

TEST_CASE("a calibration survives a JSON round trip field for field") {
  const Calibration original = test::small_calibration();
  const nlohmann::json document = calibration_to_json(original);
  // The keys of the calibration file format (calib/calibration_json.hpp).
  CHECK(document["device"]["name"] == "NVIDIA H200");
  CHECK(document["device"]["count"] == 2);
  CHECK(document["heldout_mape"]["collectives"] == 0.04);
  CHECK(document["heldout_mape"]["moe_layer"].is_null());
  const Calibration read = calibration_from_json(document, "cal.json");
  CHECK(read.command == original.command);
  CHECK(read.device.nccl_version == 22809);
  CHECK(read.device.copy_bytes_per_second == 4.25e12);
  REQUIRE(read.measurements.size() == 2);
  CHECK(read.measurements[0].dimension("n") == 4096);
  CHECK(read.measurements[0].flops == original.measurements[0].flops);
  CHECK(read.measurements[1].family == Family::collective);
  CHECK(read.measurements[1].mode == "graph");
  REQUIRE(read.coefficients.gemm.has_value());
  CHECK(read.coefficients.gemm->memory_efficiency == 0.55);
  REQUIRE(read.coefficients.collectives.size() == 1);
  CHECK(read.coefficients.collectives[0].curve.bus_bandwidth == 300e9);
  CHECK(read.coefficients.collectives[0].curve.kind == Collective::all_gather);
  CHECK_FALSE(read.coefficients.moe.has_value());
  CHECK(read.heldout.collectives == 0.04);
  CHECK_FALSE(read.heldout.otp.has_value());
  CHECK(calibration_to_json(read) == document);
}

TEST_CASE("a broken file names the file, the key and what was expected") {
  nlohmann::json document = calibration_to_json(test::small_calibration());
  SUBCASE("another schema") {
    document["schema"] = "moeplan.calibration.v0";
    CHECK(error_of(document) == "cal.json: schema: expected \"moeplan.calibration.v2\"");
  }
  SUBCASE("a file from before the per-path MoE fit") {
    document["schema"] = "moeplan.calibration.v1";
    CHECK(error_of(document) ==
          "cal.json: schema: expected \"moeplan.calibration.v2\"; a v1 file predates the per-path MoE fit: re-run "
          "moeplan calibrate");
  }
  SUBCASE("a negative time") {
    document["measurements"][1]["seconds"] = -1.0;
    CHECK(error_of(document).rfind("cal.json: measurements[1].seconds: expected a number above 0", 0) == 0);
  }
  SUBCASE("an unknown collective") {
    document["coefficients"]["collectives"][0]["kind"] = "allreduce";
    CHECK(error_of(document) ==
          "cal.json: coefficients.collectives[0].kind: expected one of all_reduce, all_gather, reduce_scatter, "
          "all_to_all");
  }
  SUBCASE("a missing device name") {
    document["device"].erase("name");
    CHECK(error_of(document) == "cal.json: device.name: expected a string (the key is missing)");
  }
}

TEST_CASE("a file measured for another model shape is refused, naming the differing field") {
  const Calibration qwen = test::small_calibration();
  CHECK_NOTHROW(check_model_matches(qwen, test::qwen3_235b(), "cal.json"));
  try {
    check_model_matches(qwen, test::deepseek_v3(), "cal.json");
    FAIL("a DeepSeek-V3 plan accepted a Qwen3-235B calibration");
  } catch (const InputError& error) {
    CHECK(error.file() == "cal.json");
    CHECK(error.key() == "model.hidden_size");
    CHECK(std::string(error.what()) ==
          "cal.json: model.hidden_size: expected 7168 as in the model given, got 4096 (measured for "
          "Qwen3-235B-A22B); pass --force to use it anyway");
  }
}

TEST_CASE("a file measured on another GPU is refused for the scenario's cluster") {
  const Calibration h200 = test::small_calibration();
  CHECK_NOTHROW(check_device_matches(h200, hardware_preset("H200", "", ""), "cal.json"));
  CHECK_THROWS_AS(check_device_matches(h200, hardware_preset("H100-SXM", "", ""), "cal.json"), InputError);
}

TEST_CASE("a non-finite coefficient stops the write, named by its path, and leaves no file") {
  Calibration calibration = test::small_calibration();
  calibration.coefficients.gemm->memory_efficiency = std::numeric_limits<double>::quiet_NaN();
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "moeplan-test-nan-calibration.json";
  std::filesystem::remove(file);
  CHECK_THROWS_WITH_AS(write_calibration(file, calibration), doctest::Contains("coefficients.gemm.memory_efficiency"),
                       std::runtime_error);
  CHECK_FALSE(std::filesystem::exists(file));
  calibration.coefficients.gemm->memory_efficiency = 0.55;
  write_calibration(file, calibration);
  CHECK(read_calibration(file).coefficients.gemm->memory_efficiency == approx(0.55));
  std::filesystem::remove(file);
}

TEST_CASE("the riding rows of the kernel calibrated round-trip; a file without them rode none") {
  nlohmann::json document = streaming_moe_document([](MoeFit& moe) { moe.streaming_riding_rows = 8; });
  CHECK(calibration_from_json(document, "cal.json").coefficients.moe->streaming_riding_rows == 8);
  document["coefficients"]["moe"].erase("streaming_riding_rows");
  CHECK(calibration_from_json(document, "cal.json").coefficients.moe->streaming_riding_rows == 0);
  document["coefficients"]["moe"]["streaming_riding_rows"] = 64;
  CHECK(error_of(document) ==
        "cal.json: coefficients.moe.streaming_riding_rows: expected an integer in [0, 63], got 64");
}

TEST_CASE("a MoE stage fitted before the repeated-block term prices repeated blocks as first passes") {
  nlohmann::json document = streaming_moe_document([](MoeFit& moe) { moe.streaming_max_rows_per_slot = 134; });
  CHECK(document["coefficients"]["moe"]["streaming"]["gate_up"]["repeat_efficiency"] == 2.5);
  CHECK(calibration_from_json(document, "cal.json").coefficients.moe->streaming->gate_up.repeat_efficiency == 2.5);
  // Without the key, the file's bytes term counted every block: repeated ones at the same 90 %.
  document["coefficients"]["moe"]["streaming"]["gate_up"].erase("repeat_efficiency");
  const AdditiveCost read = calibration_from_json(document, "cal.json").coefficients.moe->streaming->gate_up;
  CHECK(read.memory_efficiency == 0.9);
  CHECK(read.repeat_efficiency == 0.9);
  SUBCASE("a negative share is refused") {
    document["coefficients"]["moe"]["streaming"]["down"]["repeat_efficiency"] = -1.0;
    CHECK(error_of(document) ==
          "cal.json: coefficients.moe.streaming.down.repeat_efficiency: expected 0 (no such "
          "term) or a share in [0.001, 1000000], got -1");
  }
  SUBCASE("a share that would price a stage at years is refused, 0 (no term) is not") {
    document["coefficients"]["moe"]["streaming"]["down"]["memory_efficiency"] = 1e-300;
    CHECK(error_of(document) ==
          "cal.json: coefficients.moe.streaming.down.memory_efficiency: expected 0 (no such "
          "term) or a share in [0.001, 1000000], got 1e-300");
    document["coefficients"]["moe"]["streaming"]["down"]["memory_efficiency"] = 0.0;
    CHECK(error_of(document) == "");
  }
  SUBCASE("a fixed cost past a second is refused") {
    document["coefficients"]["moe"]["streaming"]["down"]["floor_seconds"] = 5.0;
    CHECK(error_of(document) ==
          "cal.json: coefficients.moe.streaming.down.floor_seconds: expected a number in [0, 1], got 5.0");
  }
}

TEST_CASE("a value of the wrong type is named with what was found") {
  nlohmann::json document = calibration_to_json(test::small_calibration());
  document["device"]["name"] = 7;
  CHECK(error_of(document) == "cal.json: device.name: expected a string, got 7");
  document = calibration_to_json(test::small_calibration());
  document["complete"] = "yes";
  CHECK(error_of(document) == "cal.json: complete: expected true or false, got \"yes\"");
}
