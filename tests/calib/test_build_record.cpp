// The build a calibration records, and what a user is told when it is not this build.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "calib/build_record.hpp"
#include "calib/calibration_json.hpp"
#include "calibration_fixture.hpp"
#include "io/input_error.hpp"

using namespace moeplan;
using namespace moeplan::calib;

namespace {

const std::string kOtherKernels(64, 'a');  // a SHA-256 no source tree hashes to in practice

bool hexadecimal(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isxdigit(c); });
}

}  // namespace

TEST_CASE("this build carries a SHA-256 of its kernels and its version") {
  const BuildRecord build = this_build();
  CHECK(build.kernels.size() == 64);
  CHECK(hexadecimal(build.kernels));
  CHECK_FALSE(build.version.empty());
}

TEST_CASE("the build record round-trips; a file without one reads as none") {
  Calibration calibration = test::small_calibration();
  calibration.build = BuildRecord{"0.1.0", kOtherKernels};
  nlohmann::json document = calibration_to_json(calibration);
  CHECK(document["build"]["kernels_sha256"] == kOtherKernels);
  const Calibration read = calibration_from_json(document, "cal.json");
  REQUIRE(read.build.has_value());
  CHECK(read.build->kernels == kOtherKernels);
  CHECK(read.build->version == "0.1.0");
  document.erase("build");
  CHECK_FALSE(calibration_from_json(document, "cal.json").build.has_value());
}

TEST_CASE("a build record that is not a SHA-256 is refused by name") {
  Calibration calibration = test::small_calibration();
  calibration.build = BuildRecord{"0.1.0", "abc"};
  try {
    calibration_from_json(calibration_to_json(calibration), "cal.json");
    FAIL("a three-digit fingerprint was accepted");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()) == "cal.json: build.kernels_sha256: expected 64 hexadecimal digits (a SHA-256)");
  }
}

TEST_CASE("a calibration of other kernels, or of none recorded, is flagged; this build's is not") {
  CHECK(build_mismatch(this_build(), "cal.json").empty());
  const std::string other = build_mismatch(BuildRecord{"0.0.9", kOtherKernels}, "cal.json");
  CHECK(other.find("cal.json was measured with kernels aaaaaaaaaaaa (moeplan 0.0.9)") == 0);
  CHECK(other.find(this_build().kernels.substr(0, 12)) != std::string::npos);
  CHECK(build_mismatch(std::nullopt, "cal.json").find("cal.json records no build") == 0);
}
