// The residual hierarchy: each level shrunk toward its parent by its deployments, the deepest level that
// knows a key used, a user's deployment added without moving the rest, and the file read back.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "io/input_error.hpp"
#include "predict/residuals.hpp"

namespace {

using moeplan::predict::ResidualKey;
using moeplan::predict::ResidualSample;

ResidualKey key(const std::string& family, const std::string& deployment) {
  return {"e", "g", family, "x/x", "agg", deployment, "gpu"};
}

ResidualSample sample(const std::string& family, const std::string& deployment, double tpot_log_ratio) {
  return {key(family, deployment), 0.0, tpot_log_ratio};
}

// D1 (family f) at two loads, 0.2 and 0.4; D2 (f) 0.1; D3 (family h) -0.2. Shrinkage 1.
std::vector<ResidualSample> samples() {
  return {sample("f", "D1", 0.2), sample("f", "D1", 0.4), sample("f", "D2", 0.1), sample("h", "D3", -0.2)};
}

}  // namespace

TEST_CASE("each level keeps n / (n + k) of what its deployments leave after its parent") {
  const auto table = moeplan::predict::ResidualTable::fit(samples(), 1.0);
  // Deployment medians: D1 0.3, D2 0.1, D3 -0.2. One GPU type, formats and mode throughout.
  // engine: its deployments fall in one engine x generation cell: not kept (one combination below it).
  // engine x generation: families f and h under it; median 0.1 of 3 deployments, kept 3/4: 0.075.
  // x family f: D1 and D2 fall in one GPU type, formats and mode cell: not kept; family h: one deployment.
  // x GPU type, formats and mode (f): D1, D2 leave 0.225 and 0.025 after 0.075, median 0.125 x 2/3:
  // 0.1583333.
  // x deployment D1: its runs leave 0.0416667 and 0.2416667, median 0.1416667 x 2/3: 0.2527778.
  auto factors = table.factors(key("f", "D1"));
  CHECK(factors.level == 4);
  CHECK(std::log(factors.tpot) == doctest::Approx(0.2527778).epsilon(1e-6));
  CHECK(factors.ttft == doctest::Approx(1.0));
  factors = table.factors(key("f", "unseen deployment"));
  CHECK(factors.level == 3);
  CHECK(std::log(factors.tpot) == doctest::Approx(0.1583333).epsilon(1e-6));
  // Family h has one deployment, a single configuration, not a pattern: no cell; the generation's 0.075.
  CHECK(table.factors(key("h", "")).level == 1);
  CHECK(std::log(table.factors(key("h", "")).tpot) == doctest::Approx(0.075));
  // An unseen family stops at the generation; an unseen engine gets no correction.
  factors = table.factors(key("z", ""));
  CHECK(factors.level == 1);
  CHECK(std::log(factors.tpot) == doctest::Approx(0.075));
  ResidualKey other = key("f", "D1");
  other.engine = "unknown";
  CHECK(table.factors(other).level == -1);
  CHECK(table.factors(other).tpot == 1.0);
}

TEST_CASE("a family's correction reaches a GPU type it has not seen only when seen on two") {
  // Family f on GPU a (D1 0.6, D2 0.4) alone: a new GPU type of family f gets no family cell.
  ResidualKey on_a = key("f", "D1");
  on_a.system = "a";
  ResidualKey on_a2 = key("f", "D2");
  on_a2.system = "a";
  std::vector<ResidualSample> one_gpu = {{on_a, 0.0, 0.6}, {on_a2, 0.0, 0.4}};
  ResidualKey elsewhere = key("f", "");
  elsewhere.system = "c";
  auto table = moeplan::predict::ResidualTable::fit(one_gpu, 1.0);
  CHECK(table.factors(elsewhere).level == -1);
  CHECK(table.factors(elsewhere).tpot == 1.0);
  // Add D3 (0.2) on GPU b: family f spans two GPU types. engine and engine x generation each hold one
  // cell below them: not kept. Family f: median 0.4 of 3 deployments, kept 3/4: 0.3.
  ResidualKey on_b = key("f", "D3");
  on_b.system = "b";
  one_gpu.push_back({on_b, 0.0, 0.2});
  table = moeplan::predict::ResidualTable::fit(one_gpu, 1.0);
  CHECK(table.factors(elsewhere).level == 2);
  CHECK(std::log(table.factors(elsewhere).tpot) == doctest::Approx(0.3));
}

TEST_CASE("a user's five runs enter as their deployment and leave every other key alone") {
  auto table = moeplan::predict::ResidualTable::fit(samples(), 1.0);
  const double before_d1 = table.factors(key("f", "D1")).tpot;
  const double before_family = table.factors(key("f", "")).tpot;
  std::vector<ResidualSample> mine;
  for (int run = 0; run < 5; ++run) mine.push_back(sample("f", "mine", 0.5));
  table.add_deployments(mine);
  // 0.5 - 0.1583333 = 0.3416667, kept 5 / 6: 0.1583333 + 0.2847222 = 0.4430556.
  const auto factors = table.factors(key("f", "mine"));
  CHECK(factors.level == 4);
  CHECK(std::log(factors.tpot) == doctest::Approx(0.4430556).epsilon(1e-6));
  CHECK(table.factors(key("f", "D1")).tpot == before_d1);
  CHECK(table.factors(key("f", "")).tpot == before_family);
}

TEST_CASE("residual keys: GPU generation and model family") {
  CHECK(moeplan::predict::gpu_generation("h200_sxm") == "hopper");
  CHECK(moeplan::predict::gpu_generation("gb300") == "blackwell");
  CHECK(moeplan::predict::gpu_generation("mi355x") == "cdna4");
  CHECK(moeplan::predict::model_family("nvidia/DeepSeek-R1-0528-NVFP4") == "deepseek-v3");
  CHECK(moeplan::predict::model_family("Qwen/Qwen3-235B-A22B-FP8") == "qwen3-235b-a22b");
}

TEST_CASE("the residual file reads back what it wrote, and names the key it refuses") {
  std::map<std::string, moeplan::predict::ResidualTable> tables;
  tables.emplace("e", moeplan::predict::ResidualTable::fit(samples(), 2.0));
  const auto path = std::filesystem::temp_directory_path() / "moeplan-test-residuals.json";
  std::ofstream(path) << moeplan::predict::residual_file_json(tables);
  const auto read = moeplan::predict::read_residual_file(path.string());
  REQUIRE(read.count("e") == 1);
  CHECK(read.at("e").shrinkage() == 2.0);
  CHECK(read.at("e").factors(key("f", "D1")).tpot == doctest::Approx(tables.at("e").factors(key("f", "D1")).tpot));
  std::ofstream(path) << R"({"schema_version": 1, "engines": {"e": {"shrinkage": 1, "levels": [], "cells": []}}})";
  try {
    moeplan::predict::read_residual_file(path.string());
    FAIL("a file without its five levels was read");
  } catch (const moeplan::InputError& error) {
    CHECK(error.key() == "engines.e.levels");
  }
  std::filesystem::remove(path);
}

TEST_CASE("a cell's band is its held-out error shrunk toward its level's by its deployments") {
  auto table = moeplan::predict::ResidualTable::fit(samples(), 1.0);
  std::array<double, moeplan::predict::kResidualLevels> bands{10.0, 10.0, 10.0, 10.0, 10.0};
  table.set_bands(bands, bands);
  // All four corrected at level 3; TPOT off by 20, 20, 5 (family f: D1, D1, D2) and 30 % (h).
  moeplan::predict::ResidualCheck check;
  check.level = {3, 3, 3, 3};
  check.ttft_log_error = {0.0, 0.0, 0.0, 0.0};
  check.tpot_log_error = {std::log(1.2), std::log(1.2), std::log(1.05), std::log(1.3)};
  table.set_cell_bands(samples(), check, 3);
  // Family f's cell: median 20 %, 2 deployments, kept 2/3 of the log distance from the level's 10 %:
  // 20^(2/3) x 10^(1/3) = 15.874; TTFT: its 0 % floored at 0.1 %: 0.1^(2/3) x 10^(1/3) = 0.46416.
  const auto factors = table.factors(key("f", ""));
  CHECK(factors.level == 3);
  CHECK(factors.tpot_band_percent == doctest::Approx(15.874).epsilon(1e-4));
  CHECK(factors.ttft_band_percent == doctest::Approx(0.46416).epsilon(1e-4));
  // Family h has one deployment, no cell of its own: the level above answers with its level's band.
  CHECK(table.factors(key("h", "")).tpot_band_percent == doctest::Approx(10.0));
}
