// Reading measured runs: the columns, the shapes as the data's README describes them, and refusals.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/input_error.hpp"
#include "predict/measured_runs.hpp"

namespace {

const char* kHeader =
    "id,silicon_data_source,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,"
    "moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,prefill_batch_size,"
    "prefill_num_workers,prefill_tp_size,prefill_pp_size,prefill_attention_dp_size,prefill_moe_tp_size,"
    "prefill_moe_ep_size,decode_batch_size,decode_num_workers,decode_tp_size,decode_pp_size,"
    "decode_attention_dp_size,decode_moe_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n";

std::filesystem::path write_runs(const std::string& name, const std::string& rows) {
  const auto path = std::filesystem::temp_directory_path() / ("moeplan-test-" + name + ".csv");
  std::ofstream(path) << kHeader << rows;
  return path;
}

}  // namespace

TEST_CASE("a CSV line splits on commas outside quotes") {
  const auto cells = moeplan::predict::split_csv_line(R"(a,"b,c",,"say ""hi""")");
  REQUIRE(cells.size() == 4);
  CHECK(cells[1] == "b,c");
  CHECK(cells[2].empty());
  CHECK(cells[3] == R"(say "hi")");
}

TEST_CASE("an aggregated run: concurrency from the source text, shapes completed") {
  const auto path = write_runs(
      "agg",
      "r1,db; silicon_concurrency=64; x,vllm,0.12.0,Qwen/Qwen3-32B,h100_sxm,fp8,agg,1024,128,fp8,fp8,32,2,1,,"
      "1,1,,,,,,,,,,,,,,,120.5,9.25\n"
      "r2_tp8_ep8_3,db,trtllm,1.0,deepseek-ai/DeepSeek-V3,h200_sxm,fp8,agg,1024,1024,fp8_block,fp8_block,16,64,1,1,"
      "8,8,,,,,,,,,,,,,,,300,20\n");
  const auto runs = moeplan::predict::read_measured_runs(path.string());
  REQUIRE(runs.size() == 2);
  // r1: attention dp empty -> moe_tp x moe_ep / tp = 1 x 1 / 2, at least 1; concurrency 64 from the text.
  CHECK(runs[0].concurrency == 64);
  CHECK(runs[0].worker.tp == 2);
  CHECK(runs[0].worker.attention_dp == 1);
  CHECK(*runs[0].ttft_ms == doctest::Approx(120.5));
  // r2: recorded square (tp 64 = 8 x 8, moe 8 / 8) is an 8-GPU tp 8, ep 8 run; no concurrency in the
  // text, so batch x dp = 16.
  CHECK(runs[1].worker.tp == 8);
  CHECK(runs[1].worker.moe_ep == 8);
  CHECK(runs[1].worker.moe_tp == 1);
  CHECK(runs[1].worker.gpus() == 8);
  CHECK(runs[1].concurrency == 16);
  CHECK(runs[0].sweep != runs[1].sweep);
  std::filesystem::remove(path);
}

TEST_CASE("a run recorded square with DP attention keeps its sequences: the batch grows as dp folds") {
  const auto path = write_runs(
      "square_dp",
      "s1_tp8_ep8_4,db; silicon_concurrency=256,trtllm,1.0,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,8192,1024,"
      "nvfp4,nvfp4,4,1,1,64,8,8,,,,,,,,,,,,,,,900,30\n");
  const auto runs = moeplan::predict::read_measured_runs(path.string());
  REQUIRE(runs.size() == 1);
  // Recorded tp 1 x dp 64 = 8 x 8 with moe 8 / 8: an 8-GPU run, dp 64 / 8 = 8. Its 256 requests were
  // 4 per recorded rank (4 x 64 = 256), so 256 / 8 = 32 per real rank: the batch 4 x 8.
  CHECK(runs[0].worker.attention_dp == 8);
  CHECK(runs[0].worker.gpus() == 8);
  CHECK(runs[0].worker.batch == 32);
  CHECK(runs[0].worker.batch * runs[0].worker.attention_dp == runs[0].concurrency);
  std::filesystem::remove(path);
}

TEST_CASE("a speculative column: mtp:N drafts N tokens; other methods are refused") {
  const auto path = std::filesystem::temp_directory_path() / "moeplan-test-speculative.csv";
  std::string header = kHeader;
  header.insert(header.size() - 1, ",speculative,acceptance");
  std::ofstream(path) << header
                      << "m1,db; silicon_concurrency=8,sglang,0.5,deepseek-ai/DeepSeek-R1,h200_sxm,fp8,agg,1024,1024,"
                         "fp8_block,fp8_block,8,8,1,1,1,8,,,,,,,,,,,,,,,300,20,mtp:3,0.7\n"
                      << "m2,db; silicon_concurrency=8,sglang,0.5,deepseek-ai/DeepSeek-R1,h200_sxm,fp8,agg,1024,1024,"
                         "fp8_block,fp8_block,8,8,1,1,1,8,,,,,,,,,,,,,,,300,20,none,\n";
  const auto runs = moeplan::predict::read_measured_runs(path.string());
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].draft_tokens == 3);
  CHECK(runs[0].acceptance == doctest::Approx(0.7));
  CHECK(runs[1].draft_tokens == 0);
  CHECK(runs[0].sweep != runs[1].sweep);
  std::ofstream(path) << header
                      << "m3,db,sglang,0.5,deepseek-ai/DeepSeek-R1,h200_sxm,fp8,agg,1024,1024,"
                         "fp8_block,fp8_block,8,8,1,1,1,8,,,,,,,,,,,,,,,300,20,eagle,\n";
  try {
    moeplan::predict::read_measured_runs(path.string());
    FAIL("an eagle row was read");
  } catch (const moeplan::InputError& error) {
    CHECK(error.key() == "line 2: speculative");
  }
  std::filesystem::remove(path);
}

TEST_CASE("a disaggregated run reads both workers; concurrency falls back to the decode batches") {
  const auto path =
      write_runs("disagg",
                 "d1,db,sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp8,disagg,8192,1024,fp8_block,fp8_block,,,,,,,"
                 "1,2,1,1,4,1,4,24,1,8,1,8,1,8,900,15\n");
  const auto runs = moeplan::predict::read_measured_runs(path.string());
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].disaggregated);
  CHECK(runs[0].prefill.workers == 2);
  CHECK(runs[0].prefill.attention_dp == 4);
  CHECK(runs[0].decode.attention_dp == 8);
  // 24 sequences per decode DP rank x 8 ranks x 1 worker.
  CHECK(runs[0].concurrency == 192);
  std::filesystem::remove(path);
}

TEST_CASE("a repeated id, a bad size and a missing column are refused naming the line and column") {
  const auto repeated = write_runs("repeated",
                                   "x,db,vllm,,m/a,h100_sxm,,agg,1,2,,,1,1,1,1,1,1,,,,,,,,,,,,,,,1,1\n"
                                   "x,db,vllm,,m/a,h100_sxm,,agg,1,2,,,1,1,1,1,1,1,,,,,,,,,,,,,,,1,1\n");
  CHECK_THROWS_WITH_AS(moeplan::predict::read_measured_runs(repeated.string()), doctest::Contains("line 3: id"),
                       moeplan::InputError);
  const auto bad = write_runs("bad-size", "y,db,vllm,,m/a,h100_sxm,,agg,1,2,,,1,two,1,1,1,1,,,,,,,,,,,,,,,1,1\n");
  CHECK_THROWS_WITH_AS(moeplan::predict::read_measured_runs(bad.string()), doctest::Contains("line 2: tp_size"),
                       moeplan::InputError);
  const auto path = std::filesystem::temp_directory_path() / "moeplan-test-no-column.csv";
  std::ofstream(path) << "id,backend\nz,vllm\n";
  CHECK_THROWS_WITH_AS(moeplan::predict::read_measured_runs(path.string()), doctest::Contains("silicon_data_source"),
                       moeplan::InputError);
  for (const auto& file : {repeated, bad, path}) std::filesystem::remove(file);
}
