// The layout choice: runs grouped by everything but their layout, and the predicted best layout scored
// against the measured best, on a small hand-made runs file.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "predict/layout_choice.hpp"

namespace {

const char* kHeader =
    "id,silicon_data_source,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,"
    "moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,prefill_batch_size,"
    "prefill_num_workers,prefill_tp_size,prefill_pp_size,prefill_attention_dp_size,prefill_moe_tp_size,"
    "prefill_moe_ep_size,decode_batch_size,decode_num_workers,decode_tp_size,decode_pp_size,"
    "decode_attention_dp_size,decode_moe_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n";

// An aggregated SGLang run of m/moe on H200 with 1000 prompt and 101 output tokens.
std::string row(const std::string& id, int concurrency, const std::string& shape, double ttft, double tpot) {
  return id + ",db; silicon_concurrency=" + std::to_string(concurrency) +
         ",sglang,0.5,m/moe,h200_sxm,fp8,agg,1000,101,fp8,fp8,1," + shape + ",,,,,,,,,,,,,,," + std::to_string(ttft) +
         "," + std::to_string(tpot) + "\n";
}

const std::string kExpertTp = "8,1,1,8,1";  // tp 8, pp 1, dp 1, moe_tp 8, moe_ep 1
const std::string kExpertEp = "8,1,1,1,8";  // tp 8, pp 1, dp 1, moe_tp 1, moe_ep 8
const std::string kDpAttention = "1,1,8,1,8";

moeplan::predict::RunPrediction predicted(double ttft, double tpot, bool implausible = false) {
  moeplan::predict::RunPrediction prediction;
  prediction.ttft_ms = ttft;
  prediction.tpot_ms = tpot;
  prediction.implausible = implausible;
  return prediction;
}

}  // namespace

TEST_CASE("throughput per GPU of a closed loop") {
  // 10 requests of 101 tokens, each living 100 + 100 x 10 = 1100 ms, on 8 GPUs: 10 x 101 / 1.1 / 8.
  CHECK(moeplan::predict::output_tokens_per_second_per_gpu(100, 10, 10, 101, 8) == doctest::Approx(114.772727));
}

TEST_CASE("layout choice: groups share all but the layout; repeats averaged; scored against the measurement") {
  const auto path = std::filesystem::temp_directory_path() / "moeplan-test-layout-choice.csv";
  std::ofstream(path) << kHeader
                      // Group c10: expert TP lives 1100 ms, EP 100 + 100 x 8 = 900 ms: EP leads by
                      // 1100 / 900 - 1 = 22.2 %. Predicted: TP 1000 ms, EP 100 + 100 x 9.5 = 1050 ms, so
                      // the prediction picks TP and loses 1 - 900 / 1100 = 18.18 %.
                      << row("a1", 10, kExpertTp, 100, 10)
                      << row("a2", 10, kExpertEp, 100, 8)
                      // A third layout whose measurement beats the roofline: left out of the choice.
                      << row("a3", 10, kDpAttention, 1, 1)
                      // Group c20: TP measured 1100 and 1300 ms (a repeat), EP 200 + 1000 = 1200 ms.
                      // Throughput is proportional to 1 / lifetime: TP (1/1.1 + 1/1.3) / 2 = 0.83916,
                      // EP 1 / 1.2 = 0.83333, so TP leads by 0.70 %; predicted TP 1000, EP 1100: right.
                      << row("b1", 20, kExpertTp, 100, 10) << row("b1r", 20, kExpertTp, 300, 10)
                      << row("b2", 20, kExpertEp, 200, 10)
                      // Alone at its concurrency: no alternative layout, no group.
                      << row("c1", 40, kExpertTp, 100, 10);
  const auto runs = moeplan::predict::read_measured_runs(path.string());
  REQUIRE(runs.size() == 7);
  const std::vector<moeplan::predict::RunPrediction> predictions = {
      predicted(100, 9), predicted(100, 9.5), predicted(1, 1, true), predicted(100, 9),
      predicted(100, 9), predicted(100, 10),  predicted(100, 9)};
  const auto report = moeplan::predict::layout_choice(runs, predictions);
  REQUIRE(report.groups.size() == 2);
  CHECK(report.right == 1);
  CHECK(report.decisive == 1);
  CHECK(report.decisive_right == 0);
  CHECK(report.worst_lost_percent == doctest::Approx(18.1818));
  CHECK(report.mean_lost_percent == doctest::Approx(9.0909));
  // The groups come in key order: c10 before c20.
  const auto& first = report.groups[0];
  REQUIRE(first.options.size() == 2);
  CHECK(first.lead_percent == doctest::Approx(22.2222));
  CHECK(first.options[first.measured_best].layout.find("ep8") != std::string::npos);
  CHECK(first.options[first.predicted_best].layout.find("moe_tp8") != std::string::npos);
  const auto& second = report.groups[1];
  CHECK(second.right());
  CHECK(second.lead_percent == doctest::Approx((0.5 / 1.1 + 0.5 / 1.3) * 1.2 * 100 - 100));
  CHECK(second.lost_percent == doctest::Approx(0.0));
  std::filesystem::remove(path);
}

TEST_CASE("a disaggregated run occupies every prefill and decode worker's GPUs") {
  moeplan::predict::MeasuredRun run;
  run.disaggregated = true;
  run.prefill.tp = 4;
  run.prefill.workers = 2;
  run.decode.tp = 2;
  run.decode.attention_dp = 4;
  run.decode.workers = 1;
  // 2 x 4 + 1 x 2 x 4 = 16.
  CHECK(moeplan::predict::run_gpus(run) == 16);
}
