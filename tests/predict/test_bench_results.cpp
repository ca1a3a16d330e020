// Benchmark result files as measured runs: SGLang's JSONL, vLLM's single JSON, and the refusals.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/input_error.hpp"
#include "predict/bench_results.hpp"

namespace {

std::filesystem::path bench_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("moeplan-test-bench-" + name);
  std::ofstream(path) << text;
  return path;
}

moeplan::predict::BenchDeployment deployment() {
  return {"sglang", "0.5.9", "deepseek-ai/DeepSeek-V3", "h200_sxm", {8, 1, 1, 1, 8, 0, 1}};
}

}  // namespace

TEST_CASE("bench_serving JSONL: one run per line, lengths from the totals") {
  // 100 requests of 102400 prompt and 51200 output tokens in all: 1024 in, 512 out each.
  const auto path =
      bench_file("sglang.jsonl", R"({"completed": 100, "total_input_tokens": 102400, "total_output_tokens": 51200,)"
                                 R"( "max_concurrency": 16, "mean_ttft_ms": 250.5, "mean_tpot_ms": 21.0})"
                                 "\n\n"
                                 R"({"completed": 50, "total_input_tokens": 400000, "total_output_tokens": 50000,)"
                                 R"( "max_concurrency": 32, "mean_ttft_ms": 900, "mean_tpot_ms": 30.5})"
                                 "\n");
  const auto runs = moeplan::predict::read_bench_results(path.string(), deployment());
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].input_tokens == 1024);
  CHECK(runs[0].output_tokens == 512);
  CHECK(runs[0].concurrency == 16);
  CHECK(*runs[0].tpot_ms == doctest::Approx(21.0));
  // 400000 / 50 = 8000 in, 50000 / 50 = 1000 out; another length, so another sweep.
  CHECK(runs[1].input_tokens == 8000);
  CHECK(runs[1].sweep != runs[0].sweep);
  CHECK(runs[1].worker.moe_ep == 8);
  std::filesystem::remove(path);
}

TEST_CASE("vLLM --save-result: one JSON object") {
  const auto path =
      bench_file("vllm.json",
                 "{\n  \"completed\": 10,\n  \"total_input_tokens\": 10000,\n  \"total_output_tokens\": 1000,\n"
                 "  \"max_concurrency\": 4,\n  \"mean_ttft_ms\": 80.0,\n  \"mean_tpot_ms\": 7.5\n}\n");
  const auto runs = moeplan::predict::read_bench_results(path.string(), deployment());
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].input_tokens == 1000);
  CHECK(runs[0].output_tokens == 100);
  std::filesystem::remove(path);
}

TEST_CASE("an open-loop run or a broken line is refused naming the key") {
  const auto open_loop =
      bench_file("open.json", R"({"completed": 10, "total_input_tokens": 100, "total_output_tokens": 100,)"
                              R"( "max_concurrency": null, "request_rate": 4, "mean_ttft_ms": 1, "mean_tpot_ms": 1})");
  CHECK_THROWS_WITH_AS(moeplan::predict::read_bench_results(open_loop.string(), deployment()),
                       doctest::Contains("max_concurrency"), moeplan::InputError);
  const auto broken = bench_file("broken.jsonl", "{\"completed\": 1}\nnot json\n");
  CHECK_THROWS_WITH_AS(moeplan::predict::read_bench_results(broken.string(), deployment()), doctest::Contains("line 2"),
                       moeplan::InputError);
  for (const auto& file : {open_loop, broken}) std::filesystem::remove(file);
}
