// Engine profile files: what is written reads back, and values past the physical bounds are refused.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cost/engine_profile.hpp"
#include "cost/step_price.hpp"
#include "io/input_error.hpp"

namespace {

std::filesystem::path profile_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("moeplan-test-profile-" + name + ".json");
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("a profile reads back as written") {
  moeplan::EngineProfile profile;
  profile.engine = "vllm";
  profile.source = "hand";
  profile.multipliers = {1.25, 2.0, 1.5, 0.5, 3.0};
  profile.overheads = {0.03, 0.002, 1e-5};
  profile.fitted = true;
  profile.held_out = {5, 100, 12.0, 20.0, 6.0, 9.0};
  const auto path = profile_file("round-trip", moeplan::engine_profile_json(profile));
  const auto read = moeplan::read_engine_profile(path.string());
  CHECK(read.engine == "vllm");
  CHECK(read.multipliers.communication == doctest::Approx(0.5));
  CHECK(read.overheads.sequence_step == doctest::Approx(1e-5));
  CHECK(read.held_out.tpot_median == doctest::Approx(6.0));
  CHECK(moeplan::error_band_percent(read, true) == doctest::Approx(6.0));
  std::filesystem::remove(path);
}

TEST_CASE("an efficiency above the ceiling or a negative overhead is refused naming the key") {
  moeplan::EngineProfile profile;
  profile.engine = "sglang";
  std::string text = moeplan::engine_profile_json(profile);
  const std::string faster = text.substr(0, text.find("\"attention\": 1.5")) + "\"attention\": 0.9" +
                             text.substr(text.find("\"attention\": 1.5") + 16);
  const auto path = profile_file("too-fast", faster);
  CHECK_THROWS_WITH_AS(moeplan::read_engine_profile(path.string()), doctest::Contains("multipliers.attention"),
                       moeplan::InputError);
  std::filesystem::remove(path);
}

TEST_CASE("an unfitted profile gets the wide band") {
  CHECK(moeplan::error_band_percent(moeplan::EngineProfile{}, false, 40.0) == 40.0);
}

TEST_CASE("a profile records the measured ceilings it sits on; a file without the key sits on the roofline") {
  moeplan::EngineProfile profile;
  profile.engine = "sglang";
  profile.ceilings = {"H200: calibration_4xh200.json (4x NVIDIA H200; memory)"};
  const auto path = profile_file("ceilings", moeplan::engine_profile_json(profile));
  CHECK(moeplan::read_engine_profile(path.string()).ceilings == profile.ceilings);
  std::string text = moeplan::engine_profile_json(moeplan::EngineProfile{});
  const std::size_t key = text.find("  \"ceilings\": [],\n");
  REQUIRE(key != std::string::npos);
  const auto old_file = profile_file("no-ceilings", text.erase(key, std::string("  \"ceilings\": [],\n").size()));
  const auto read = moeplan::read_engine_profile(old_file.string());
  CHECK(read.ceilings.empty());
  CHECK(moeplan::ceilings_description(read.ceilings) == "datasheet roofline");
  std::string written = moeplan::engine_profile_json(profile);
  const std::string name = "\"H200: calibration_4xh200.json (4x NVIDIA H200; memory)\"";
  const auto bad = profile_file("bad-ceilings", written.replace(written.find(name), name.size(), "4"));
  CHECK_THROWS_WITH_AS(moeplan::read_engine_profile(bad.string()), doctest::Contains("ceilings: expected"),
                       moeplan::InputError);
  for (const auto& file : {path, old_file, bad}) std::filesystem::remove(file);
}

TEST_CASE("a disaggregated first token waits half a decode step on SGLang, one and a half elsewhere") {
  // SGLang streams the prefill side's token when the request joins the decode batch: the step in flight,
  // 0.5 on average. vLLM and TensorRT-LLM sample it in a decode step of their own: 0.5 + 1.
  CHECK(moeplan::default_engine_profile("sglang").first_token_decode_steps == 0.5);
  CHECK(moeplan::default_engine_profile("vllm").first_token_decode_steps == 1.5);
  CHECK(moeplan::default_engine_profile("trtllm").first_token_decode_steps == 1.5);
  // Written and read back; a file without the key takes its engine's default; past 4 steps is refused.
  moeplan::EngineProfile profile = moeplan::default_engine_profile("sglang");
  profile.first_token_decode_steps = 2.0;
  std::string text = moeplan::engine_profile_json(profile);
  const auto path = profile_file("first-token", text);
  CHECK(moeplan::read_engine_profile(path.string()).first_token_decode_steps == 2.0);
  const std::string line = "  \"first_token_decode_steps\": 2.0,\n";
  const std::size_t key = text.find(line);
  REQUIRE(key != std::string::npos);
  const auto old_file = profile_file("no-first-token", std::string(text).erase(key, line.size()));
  CHECK(moeplan::read_engine_profile(old_file.string()).first_token_decode_steps == 0.5);
  const auto bad = profile_file("bad-first-token",
                                std::string(text).replace(key, line.size(), "  \"first_token_decode_steps\": 5,\n"));
  CHECK_THROWS_WITH_AS(moeplan::read_engine_profile(bad.string()), doctest::Contains("first_token_decode_steps"),
                       moeplan::InputError);
  for (const auto& file : {path, old_file, bad}) std::filesystem::remove(file);
}

TEST_CASE("the profile of no engine is the fitted profiles' geometric-mean multipliers and mean overheads") {
  moeplan::EngineProfile low, high;
  low.multipliers.attention = 1.0;
  high.multipliers.attention = 4.0;  // geometric mean of 1 and 4: 2
  low.overheads.step = 0.001;
  high.overheads.step = 0.003;  // mean: 0.002
  const moeplan::EngineProfile mean = moeplan::mean_profile({low, high});
  CHECK(mean.multipliers.attention == doctest::Approx(2.0));
  CHECK(mean.overheads.step == doctest::Approx(0.002));
  CHECK_FALSE(mean.fitted);
}

TEST_CASE("a decode step adds the overheads to each family at its multiplier") {
  moeplan::EngineProfile profile;
  profile.multipliers = {2.0, 3.0, 1.0, 0.5, 1.0};
  profile.overheads = {0.0, 0.001, 1e-5};
  moeplan::FamilyTimes times;
  times.attention = 0.004;
  times.experts = 0.010;
  times.other = 0.002;
  times.communication = 0.002;
  // By hand: 0.001 + 1e-5 x 32 + 2 x 0.004 + 3 x 0.010 + 1 x 0.002 + 0.5 x 0.002 = 0.04232 s.
  CHECK(moeplan::decode_step_seconds(times, 32, profile) == doctest::Approx(0.04232));
}

TEST_CASE("a prompt prices its attention at its own multiplier, or at the prefill one when unset") {
  moeplan::EngineProfile profile;
  profile.multipliers = {1.0, 1.0, 1.0, 0.5, 2.0};
  profile.overheads = {0.0, 0.001, 0.0};
  profile.chunk_tokens = 8192;
  moeplan::FamilyTimes times;
  times.attention = 0.010;
  times.experts = 0.020;
  times.other = 0.004;
  times.communication = 0.002;
  // Unset: 2 x (0.010 + 0.020 + 0.004) + 0.5 x 0.002 + 0.001 x 4096 / 8192 = 0.0695 s.
  CHECK(moeplan::prompt_seconds(times, 4096, profile) == doctest::Approx(0.0695));
  // Attention at 3: 3 x 0.010 + 2 x 0.024 + 0.001 + 0.0005 = 0.0795 s; and it reads back as written.
  profile.multipliers.prefill_attention = 3.0;
  CHECK(moeplan::prompt_seconds(times, 4096, profile) == doctest::Approx(0.0795));
  const auto path = profile_file("prefill-attention", moeplan::engine_profile_json(profile));
  CHECK(moeplan::read_engine_profile(path.string()).multipliers.prefill_attention == doctest::Approx(3.0));
  std::filesystem::remove(path);
}

TEST_CASE("TensorRT-LLM starts attention-DP prompts together; a file without the key takes its engine's default") {
  CHECK(moeplan::default_engine_profile("trtllm").dp_prompts_aligned);
  CHECK_FALSE(moeplan::default_engine_profile("vllm").dp_prompts_aligned);
  CHECK_FALSE(moeplan::default_engine_profile("sglang").dp_prompts_aligned);
  const std::string key = "  \"dp_prompts_aligned\": false,\n";
  for (const std::string engine : {"trtllm", "vllm"}) {
    moeplan::EngineProfile profile;
    profile.engine = engine;
    std::string text = moeplan::engine_profile_json(profile);
    REQUIRE(text.find(key) != std::string::npos);
    const auto old_file = profile_file("no-dp-prompts-" + engine, text.erase(text.find(key), key.size()));
    CHECK(moeplan::read_engine_profile(old_file.string()).dp_prompts_aligned == (engine == "trtllm"));
    std::filesystem::remove(old_file);
  }
  moeplan::EngineProfile written;
  written.engine = "sglang";
  written.dp_prompts_aligned = true;
  const auto path = profile_file("dp-prompts", moeplan::engine_profile_json(written));
  CHECK(moeplan::read_engine_profile(path.string()).dp_prompts_aligned);
  std::filesystem::remove(path);
}
