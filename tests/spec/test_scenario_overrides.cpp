// Scenario fields given as flags: written over a file's keys, errors naming the flag, and the YAML
// --save-scenario writes reading back to the same scenario.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include "io/input_error.hpp"
#include "spec/scenario_overrides.hpp"

namespace {

const std::string kScenarios = std::string(MOEPLAN_SOURCE_DIR) + "/scenarios/";

std::filesystem::path scratch_folder(const std::string& name) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / ("moeplan-test-" + name);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

std::string write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

// The key of the InputError that applying `overrides` to the shipped 8 x H200 scenario raises.
std::string refused_flag(const moeplan::ScenarioOverrides& overrides) {
  moeplan::ScenarioDocument document = moeplan::ScenarioDocument::from_file(kScenarios + "deepseek-v3-8xh200.yaml");
  try {
    document.apply(overrides);
    static_cast<void>(document.scenario());
  } catch (const moeplan::InputError& error) {
    CHECK(error.file() == "command line");
    return error.key();
  }
  return "";
}

moeplan::ScenarioOverrides one_line_overrides() {
  moeplan::ScenarioOverrides overrides;
  overrides.gpus = 16;
  overrides.input_tokens = 1000;
  overrides.output_tokens = 200;
  overrides.concurrency = 32;
  overrides.ttft_ms = 500;
  overrides.tpot_ms = 50;
  overrides.engine = "sglang@0.5.4";
  return overrides;
}

}  // namespace

TEST_CASE("flags replace a scenario file's values and keep the rest") {
  moeplan::ScenarioDocument document = moeplan::ScenarioDocument::from_file(kScenarios + "deepseek-v3-8xh200.yaml");
  document.apply(one_line_overrides());
  const moeplan::Scenario scenario = document.scenario();
  // 16 GPUs over the file's 8 per node: 2 nodes of 8.
  CHECK(scenario.cluster.nodes == 2);
  CHECK(scenario.cluster.gpus_per_node == 8);
  CHECK(scenario.workload.input_tokens == 1000);
  CHECK(scenario.workload.output_tokens == 200);
  CHECK(scenario.workload.concurrency == 32);
  CHECK_FALSE(scenario.workload.request_rate.has_value());  // a concurrency alone replaces the file's rate of 4
  CHECK(scenario.workload.num_requests == 300);             // the file's
  CHECK(*scenario.slo.ttft == approx(0.5));
  CHECK(*scenario.slo.tpot == approx(0.05));
  CHECK(scenario.engine.name == "sglang");
  CHECK(scenario.engine.version == "0.5.4");
  CHECK(scenario.memory.utilization == approx(0.88));  // the file's memory and search blocks stay
  CHECK(scenario.search.fused_shared == std::vector<std::int64_t>{0, 1, 8});
}

TEST_CASE("the saved scenario reads back to the same scenario") {
  moeplan::ScenarioDocument document = moeplan::ScenarioDocument::from_file(kScenarios + "deepseek-v3-8xh200.yaml");
  moeplan::ScenarioOverrides overrides = one_line_overrides();
  overrides.concurrency.reset();
  overrides.request_rate = 0.1;  // no short binary form: it must be written so it reads back exactly
  document.apply(overrides);
  const moeplan::Scenario made = document.scenario();
  const std::filesystem::path saved = scratch_folder("saved-scenario") / "saved.yaml";
  const moeplan::Scenario read = moeplan::load_scenario_yaml(write_file(saved, document.yaml_text(saved)));
  CHECK(read.name == made.name);
  CHECK(read.cluster.hardware.name == "H200");
  CHECK(read.cluster.gpus() == 16);
  CHECK(read.workload.input_tokens == 1000);
  CHECK(read.workload.output_tokens == 200);
  CHECK(*read.workload.request_rate == 0.1);
  CHECK(*read.slo.ttft == *made.slo.ttft);
  CHECK(*read.slo.tpot == *made.slo.tpot);
  CHECK(read.engine.version == "0.5.4");
  CHECK(read.memory.max_batch == 256);
  CHECK(read.search.redundant == std::vector<std::int64_t>{0, 8});
}

TEST_CASE("a saved scenario names its files relative to where it is written") {
  const std::filesystem::path folder = scratch_folder("relocated-scenario");
  std::filesystem::create_directories(folder / "in" / "logs");
  const std::string loads = write_file(folder / "in" / "logs" / "loads.json", "{}");
  const std::string file = write_file(folder / "in" / "scenario.yaml",
                                      "schema_version: 1\nname: s\ncluster: {gpu: H200}\n"
                                      "workload: {input_tokens: 10, output_tokens: 10, concurrency: 1}\n"
                                      "expert_loads: logs/loads.json\n");
  const moeplan::ScenarioDocument document = moeplan::ScenarioDocument::from_file(file);
  const std::filesystem::path saved = folder / "out" / "saved.yaml";
  std::filesystem::create_directories(saved.parent_path());
  const std::string text = document.yaml_text(saved);
  CHECK(text.find("expert_loads: ../in/logs/loads.json") != std::string::npos);
  const moeplan::Scenario read = moeplan::load_scenario_yaml(write_file(saved, text));
  CHECK(std::filesystem::equivalent(read.expert_loads, loads));
}

TEST_CASE("a GPU count fills one node or whole nodes") {
  moeplan::ScenarioOverrides four;
  four.gpus = 4;
  moeplan::ScenarioDocument document = moeplan::ScenarioDocument::from_file(kScenarios + "deepseek-v3-8xh200.yaml");
  document.apply(four);
  CHECK(document.scenario().cluster.nodes == 1);
  CHECK(document.scenario().cluster.gpus_per_node == 4);
  moeplan::ScenarioOverrides twelve;
  twelve.gpus = 12;  // 12 is neither at most one node of 8 nor whole nodes of 8
  CHECK(refused_flag(twelve) == "--gpus");
  twelve.gpus_per_node = 4;  // three nodes of 4
  document.apply(twelve);
  CHECK(document.scenario().cluster.nodes == 3);
}

TEST_CASE("a new GPU preset drops the file's figures for the old one") {
  moeplan::ScenarioDocument document = moeplan::ScenarioDocument::from_file(kScenarios + "qwen3-235b-rl-910b.yaml");
  moeplan::ScenarioOverrides overrides;
  overrides.gpu = "H200";
  document.apply(overrides);
  const moeplan::Scenario scenario = document.scenario();
  // The 910B file sets 16 GPUs per node and 1786 GB/s; the H200 preset has 8 per node and 4.8 TB/s.
  CHECK(scenario.cluster.gpus_per_node == 8);
  CHECK(scenario.cluster.hardware.hbm_bandwidth == approx(4.8e12));
}

TEST_CASE("flags the scenario cannot take name themselves") {
  moeplan::ScenarioOverrides engine;
  engine.engine = "tgi";
  CHECK(refused_flag(engine) == "--engine");
  engine.engine = "sglang@";
  CHECK(refused_flag(engine) == "--engine");
  moeplan::ScenarioOverrides gpu;
  gpu.gpu = "H300";
  CHECK(refused_flag(gpu) == "--gpu");
  moeplan::ScenarioOverrides both;
  both.gpus = 8;
  both.nodes = 1;
  CHECK(refused_flag(both) == "--gpus");
}

TEST_CASE("a length flag must suit the file's spread or trace") {
  const std::filesystem::path folder = scratch_folder("length-overrides");
  write_file(folder / "trace.csv", "input,output\n100,10\n");
  const std::string traced = write_file(folder / "traced.yaml",
                                        "schema_version: 1\nname: t\ncluster: {gpu: H200}\n"
                                        "workload: {length_trace: trace.csv, concurrency: 1}\n");
  moeplan::ScenarioOverrides input_only;
  input_only.input_tokens = 50;
  moeplan::ScenarioDocument document = moeplan::ScenarioDocument::from_file(traced);
  try {
    document.apply(input_only);
    FAIL("a trace replaced by one length");
  } catch (const moeplan::InputError& error) {
    CHECK(error.key() == "--output-tokens");
  }
  const std::string spread = write_file(folder / "spread.yaml",
                                        "schema_version: 1\nname: s\ncluster: {gpu: H200}\n"
                                        "workload: {input_tokens: 100, output_tokens: 10, concurrency: 1,\n"
                                        "  input_lengths: {shape: lognormal, sigma: 0.5, max: 400}}\n");
  moeplan::ScenarioOverrides above_cap;
  above_cap.input_tokens = 400;  // a mean at the cap of 400 leaves no room for the spread
  document = moeplan::ScenarioDocument::from_file(spread);
  try {
    document.apply(above_cap);
    FAIL("a mean at the cap");
  } catch (const moeplan::InputError& error) {
    CHECK(error.key() == "--input-tokens");
  }
}

TEST_CASE("sizing flags write the sizing block and the price") {
  moeplan::ScenarioDocument document = moeplan::ScenarioDocument::from_file(kScenarios + "deepseek-v3-8xh200.yaml");
  moeplan::ScenarioOverrides overrides;
  overrides.target_rate = 40;
  overrides.gpus_range = "8..128";
  overrides.gpu_hour_usd = 3.1;
  document.apply(overrides);
  const moeplan::Scenario scenario = document.scenario();
  REQUIRE(scenario.sizing);
  CHECK(scenario.sizing->request_rate == 40);
  CHECK(scenario.sizing->min_gpus == 8);
  CHECK(scenario.sizing->max_gpus == 128);
  CHECK(scenario.cluster.hardware.gpu_hour_usd == approx(3.1));
  CHECK(*scenario.workload.request_rate == 4);  // the offered load stays the file's
}

TEST_CASE("a GPU range that is not MIN..MAX is refused naming the flag") {
  for (const char* text : {"8-128", "..8", "16..8", "0..8", "8..", "a..b", "8..99999999"}) {
    moeplan::ScenarioOverrides overrides;
    overrides.gpus_range = text;
    CHECK(refused_flag(overrides) == "--gpus-range");
  }
}
