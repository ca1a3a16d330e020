// vllm-ascend: the O-projection TP of [doc-004] through --additional-config, written by hand from
// [vllm-ascend-finegrained-tp] (finegrained_tp_config from 0.12) and [vllm-ascend-pr-2167] (top-level keys
// from 0.10.2 to 0.11).
#include "export/vllm_ascend/vllm_ascend.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::node_of;
using export_test::plan_document;
using export_test::plan_from;
using Tokens = std::vector<std::string>;

namespace {

std::string refused_key(const nlohmann::json& document, std::size_t role, EngineVersion version = kMainBranch) {
  return export_test::refused_role_key(document, role, 0, [&](const PlanFile& plan, const RolePlan& refused) {
    check_vllm_role(plan, refused, version, VllmPlatform::ascend);
    check_vllm_ascend_role(plan, refused, version);
  });
}

}  // namespace

TEST_CASE("[doc-004] decode node: DP16 EP16 with OTP4 on vllm-ascend main") {
  const PlanFile plan = export_test::plan_named("qwen3-235b-pd-otp4-910b.json");
  const RolePlan& decode = plan.plans[0].roles[1];
  check_vllm_role(plan, decode, kMainBranch, VllmPlatform::ascend);
  check_vllm_ascend_role(plan, decode, kMainBranch);
  VllmSettings settings;
  settings.model_path = "Qwen/Qwen3-235B-A22B";
  settings.network_interface = "eth0";
  settings.prefill_layout = &plan.plans[0].roles[0].layout;
  settings.decode_layout = &decode.layout;
  const Tokens expected = {
      "vllm", "serve", "Qwen/Qwen3-235B-A22B", "--tensor-parallel-size", "1", "--data-parallel-size", "16",
      "--enable-expert-parallel", "--gpu-memory-utilization", "0.95", "--max-num-seqs", "48",
      "--max-num-batched-tokens", "4096", "--max-model-len", "4096", "--kv-cache-dtype", "auto", "--kv-transfer-config",
      // [vllm-ascend-mooncake]: the connector, a kv_port per instance on a node, a unique
      // engine id, and both roles' DP x TP (prefill DP16, decode DP16 OTP4, TP 1).
      R"({"engine_id":"decode-0","kv_connector":"MooncakeConnectorV1",)"
      R"("kv_connector_extra_config":{"decode":{"dp_size":16,"tp_size":1},)"
      R"("prefill":{"dp_size":16,"tp_size":1}},"kv_port":"36000","kv_role":"kv_consumer"})",
      "--additional-config",
      // [vllm-ascend-recompute]: main needs the recompute scheduler with the O-projection TP.
      R"({"finegrained_tp_config":{"oproj_tensor_parallel_size":4},"recompute_scheduler_enable":true})"};
  CHECK(export_test::tokens(vllm_ascend_launch(plan, node_of(plan, 1, 0), settings)) == expected);
}

TEST_CASE("the additional-config schema follows the release") {
  const PlanFile plan = export_test::plan_named("qwen3-235b-pd-otp4-910b.json");
  const RolePlan& decode = plan.plans[0].roles[1];
  CHECK(vllm_ascend_additional_config(plan, decode, parse_engine_version("v0.12.0rc1", "x")) ==
        nlohmann::json::parse(R"({"finegrained_tp_config": {"oproj_tensor_parallel_size": 4}})"));
  // [vllm-ascend-pr-2167]: 0.10.2-0.11 put the key at the top level and required the torchair graph.
  CHECK(vllm_ascend_additional_config(plan, decode, release(0, 11)) ==
        nlohmann::json::parse(R"({"oproj_tensor_parallel_size": 4, "torchair_graph_config": {"enabled": true}})"));
  CHECK(vllm_ascend_additional_config(plan, plan.plans[0].roles[0], kMainBranch).empty());
}

TEST_CASE("LM-head and dense-FFN splits at TP 1 go into finegrained_tp_config") {
  nlohmann::json document = plan_document("qwen3-235b-pd-otp4-910b.json");
  document["model"]["dense_layers"] = 3;
  nlohmann::json& decode = document["plans"][0]["roles"][1];
  decode["layout"]["lm_head_tp"] = 8;
  decode["layout"]["dense_tp"] = 2;
  const PlanFile plan = plan_from(document);
  check_vllm_ascend_role(plan, plan.plans[0].roles[1], kMainBranch);
  CHECK(vllm_ascend_additional_config(plan, plan.plans[0].roles[1], kMainBranch) ==
        nlohmann::json::parse(R"({"finegrained_tp_config": {"oproj_tensor_parallel_size": 4,
                                   "lmhead_tensor_parallel_size": 8, "mlp_tensor_parallel_size": 2}})"));
  // [vllm-ascend-pr-2167]: the legacy schema has no mlp_tensor_parallel_size.
  CHECK(refused_key(document, 1, release(0, 11)) == "layout.dense_tp");
}

TEST_CASE("vllm-ascend refuses what its rules reject [vllm-ascend-finegrained-tp]") {
  nlohmann::json document = plan_document("qwen3-235b-pd-otp4-910b.json");
  nlohmann::json& decode = document["plans"][0]["roles"][1];
  SUBCASE("the accepted plan") { CHECK(refused_key(document, 1).empty()); }
  SUBCASE("O-projection TP outside a decode role: the mixed RL deployment of [doc-004]") {
    const PlanFile plan = export_test::plan_named("qwen3-235b-rl-otp4-910b.json");
    const auto refusal =
        export_test::refusal_of([&] { check_vllm_ascend_role(plan, plan.plans[0].roles[0], kMainBranch); });
    CHECK(refusal.key == "plans[0].roles[0].layout.otp");
    CHECK(export_test::contains(refusal.message, "only on decode nodes"));
  }
  SUBCASE("O-projection TP with attention TP above 1") {
    decode["layout"]["tp"] = 2;
    decode["layout"]["dp"] = 8;
    decode["layout"]["lm_head_tp"] = 2;
    decode["layout"]["dense_tp"] = 2;
    CHECK(refused_key(document, 1) == "layout.otp");
  }
  SUBCASE("an O-projection group not dividing DP") {
    // otp = 3 does not divide Qwen3's 64 heads either: without the recorded heads, vllm-ascend's rule refuses it.
    document["model"].erase("num_heads");
    document["model"].erase("num_kv_heads");
    decode["layout"]["otp"] = 3;
    CHECK(refused_key(document, 1) == "layout.otp");
  }
  SUBCASE("O-projection TP without graph mode") {
    decode["cuda_graph_max_batch"] = 0;
    CHECK(refused_key(document, 1) == "cuda_graph_max_batch");
  }
  SUBCASE("a release before 0.10.2 has no O-projection TP") {
    CHECK(refused_key(document, 1, release(0, 9, 1)) == "layout.otp");
  }
  SUBCASE("no QKV-projection TP") {
    decode["layout"]["qkvtp"] = 4;
    CHECK(refused_key(document, 1) == "layout.qkvtp");
  }
  SUBCASE("no FP8 KV cache on the 910B") {
    decode["kv_cache_dtype"] = "fp8_e4m3";
    CHECK(refused_key(document, 1) == "kv_cache_dtype");
  }
  SUBCASE("no redundant experts") {
    decode["layout"]["redundant"] = 16;
    CHECK(refused_key(document, 1) == "layout.redundant");
  }
  SUBCASE("no two-batch overlap") {
    decode["two_batch_overlap"] = true;
    CHECK(refused_key(document, 1) == "two_batch_overlap");
  }
  // [vllm-ascend-dbo]: VLLM_ASCEND_ENABLE_DBO is read by the DeepSeek model up to v0.10.2rc1 (prefill batches
  // only) and its model path is gone at v0.11.0rc0; the refusal says which side the release is on.
  SUBCASE("two-batch overlap on both sides of 0.11.0rc0") {
    decode["two_batch_overlap"] = true;
    const auto message_at = [&](EngineVersion version) {
      const PlanFile plan = plan_from(document);
      return export_test::refusal_of(
                 [&] { check_vllm_role(plan, plan.plans[0].roles[1], version, VllmPlatform::ascend); })
          .message;
    };
    const std::string before = message_at(release_candidate(0, 10, 2, 1));
    CHECK(export_test::contains(before, "vllm-ascend 0.10.2rc1"));
    CHECK(export_test::contains(before, "VLLM_ASCEND_ENABLE_DBO"));
    CHECK(export_test::contains(before, "prefill"));
    const std::string after = message_at(release_candidate(0, 11, 0, 0));
    CHECK(export_test::contains(after, "vllm-ascend 0.11.0rc0, which has no dual-batch overlap"));
    CHECK_FALSE(export_test::contains(after, "VLLM_ASCEND_ENABLE_DBO"));
  }
}

// The launch command of [doc-004]: --block-size is vllm-ascend's 128 and, on releases that read it (to
// 0.11.0, [vllm-ascend-release-tags]), the torchair graph lists its sizes ("graph_batch_sizes_init": false,
// "graph_batch_sizes": [8, 16, 24, 48]).
TEST_CASE("the plan's KV block and captured graph sizes reach the launch command") {
  nlohmann::json document = plan_document("qwen3-235b-pd-otp4-910b.json");
  nlohmann::json& decode = document["plans"][0]["roles"][1];
  decode["kv_block_tokens"] = 128;
  decode["graph_batch_sizes"] = {8, 16, 24, 48};
  const PlanFile plan = plan_from(document);
  VllmSettings settings;
  settings.model_path = "Qwen/Qwen3-235B-A22B";
  settings.network_interface = "eth0";
  const Tokens command = export_test::tokens(vllm_ascend_launch(plan, node_of(plan, 1, 0), settings));
  const auto block = std::find(command.begin(), command.end(), "--block-size");
  REQUIRE(block != command.end());
  CHECK(*(block + 1) == "128");
  CHECK(vllm_ascend_additional_config(plan, plan.plans[0].roles[1], release(0, 11)) ==
        nlohmann::json::parse(R"({"oproj_tensor_parallel_size": 4,
          "torchair_graph_config": {"enabled": true, "graph_batch_sizes_init": false,
                                    "graph_batch_sizes": [8, 16, 24, 48]}})"));
  // main no longer reads torchair_graph_config: the sizes are left out.
  CHECK(vllm_ascend_additional_config(plan, plan.plans[0].roles[1], kMainBranch) ==
        nlohmann::json::parse(R"({"finegrained_tp_config": {"oproj_tensor_parallel_size": 4}})"));
  decode["graph_batch_sizes"] = {8, 0};
  CHECK(export_test::refusal_of([&] { plan_from(document); }).key == "plans[0].roles[1].graph_batch_sizes[1]");
  // vllm-ascend pads to the first listed size that holds the batch: out of order, 24 would take a batch of 9.
  decode["graph_batch_sizes"] = {8, 24, 16};
  CHECK(export_test::refusal_of([&] { plan_from(document); }).key == "plans[0].roles[1].graph_batch_sizes[2]");
}
