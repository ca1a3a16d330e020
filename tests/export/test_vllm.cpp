// vLLM engine arguments, written by hand from [vllm-parallel-config], [vllm-cache-config], [vllm-ep-docs] and
// [vllm-engine-args-docs].
#include "export/endpoints.hpp"
#include "export/vllm/vllm.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::node_of;
using export_test::plan_document;
using export_test::plan_from;
using Tokens = std::vector<std::string>;

namespace {

LaunchCommand vllm_command(const PlanFile& plan, std::size_t role, std::int64_t node_rank, EngineVersion version,
                           std::size_t plan_index = 0) {
  check_vllm_role(plan, plan.plans[plan_index].roles[role], version, VllmPlatform::cuda);
  VllmSettings settings;
  settings.version = version;
  settings.model_path = "deepseek-ai/DeepSeek-V3";
  return vllm_launch(node_of(plan, role, node_rank, plan_index), settings, VllmPlatform::cuda);
}

std::string refused_key(const nlohmann::json& document, std::size_t role, std::size_t plan_index = 0,
                        EngineVersion version = kMainBranch) {
  return export_test::refused_role_key(document, role, plan_index, [&](const PlanFile& plan, const RolePlan& refused) {
    check_vllm_role(plan, refused, version, VllmPlatform::cuda);
  });
}

}  // namespace

TEST_CASE("[doc-003] prefill on vLLM: DP32 over 4 nodes, 8 local DP ranks each, DeepEP high throughput") {
  const PlanFile plan = export_test::plan_named("deepseek-v3-pd-h100.json");
  // Node 0 leads, with no start rank [vllm-ep-docs]; the EPLB config as JSON [vllm-parallel-config];
  // --max-num-seqs per DP rank [vllm-engine-args-docs].
  const Tokens expected = {"vllm",
                           "serve",
                           "deepseek-ai/DeepSeek-V3",
                           "--tensor-parallel-size",
                           "1",
                           "--data-parallel-size",
                           "32",
                           "--data-parallel-size-local",
                           "8",
                           "--data-parallel-address",
                           "node0",
                           "--enable-expert-parallel",
                           "--all2all-backend",
                           "deepep_high_throughput",
                           "--enable-eplb",
                           "--eplb-config",
                           R"({"num_redundant_experts":32})",
                           "--enable-dbo",
                           "--gpu-memory-utilization",
                           "0.92",
                           "--max-num-seqs",
                           "256",
                           "--max-num-batched-tokens",
                           "16384",
                           "--max-model-len",
                           "2100",
                           "--kv-cache-dtype",
                           "auto",
                           "--enforce-eager",
                           "--kv-transfer-config",
                           R"({"kv_connector":"NixlConnector","kv_role":"kv_producer"})"};
  const LaunchCommand command = vllm_command(plan, 0, 0, kMainBranch);
  CHECK(export_test::tokens(command) == expected);
  CHECK(command.environment.empty());
}

TEST_CASE("[doc-003] decode node 3 on vLLM 0.10: the all-to-all backend is an environment variable") {
  const PlanFile plan = export_test::plan_named("deepseek-v3-pd-h100.json");
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  document["plans"][0]["roles"][1]["two_batch_overlap"] = false;
  const PlanFile without_overlap = plan_from(document);
  const Tokens expected = {"vllm",
                           "serve",
                           "deepseek-ai/DeepSeek-V3",
                           "--tensor-parallel-size",
                           "1",
                           "--data-parallel-size",
                           "72",
                           "--data-parallel-size-local",
                           "8",
                           "--data-parallel-address",
                           "node4",
                           "--data-parallel-start-rank",
                           "24",
                           "--headless",
                           "--enable-expert-parallel",
                           "--enable-eplb",
                           "--num-redundant-experts",
                           "32",
                           "--gpu-memory-utilization",
                           "0.92",
                           "--max-num-seqs",
                           "256",
                           "--max-num-batched-tokens",
                           "4096",
                           "--max-model-len",
                           "2100",
                           "--kv-cache-dtype",
                           "auto",
                           "--kv-transfer-config",
                           R"({"kv_connector":"NixlConnector","kv_role":"kv_consumer"})"};
  const LaunchCommand command = vllm_command(without_overlap, 1, 3, release(0, 10, 1));
  CHECK(export_test::tokens(command) == expected);
  REQUIRE(command.environment.size() == 1);
  CHECK(command.environment[0] == std::pair<std::string, std::string>("VLLM_ALL2ALL_BACKEND", "deepep_low_latency"));
  // --enable-dbo is documented from the 0.11 era on.
  CHECK(refused_key(plan_document("deepseek-v3-pd-h100.json"), 1, 0, release(0, 10, 1)) == "two_batch_overlap");
}

TEST_CASE("[doc-000] unfused on vLLM: plain TP8, no expert parallelism") {
  const PlanFile plan = export_test::plan_named("deepseek-v3-tp8-h200.json");
  const Tokens expected = {"vllm",
                           "serve",
                           "deepseek-ai/DeepSeek-V3",
                           "--tensor-parallel-size",
                           "8",
                           "--gpu-memory-utilization",
                           "0.88",
                           "--max-num-seqs",
                           "256",
                           "--max-num-batched-tokens",
                           "8192",
                           "--max-model-len",
                           "2048",
                           "--kv-cache-dtype",
                           "auto"};
  CHECK(export_test::tokens(vllm_command(plan, 0, 0, release(0, 12), 1)) == expected);
}

TEST_CASE("a plan with the prefix cache off turns it off; on, or from before the key, it says nothing") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  nlohmann::json& role = document["plans"][1]["roles"][0];
  const auto last_token = [&] {
    return export_test::tokens(vllm_command(plan_from(document), 0, 0, release(0, 12), 1)).back();
  };
  CHECK(last_token() == "auto");  // --kv-cache-dtype auto ends the command
  role["prefix_caching"] = true;
  CHECK(last_token() == "auto");
  role["prefix_caching"] = false;
  CHECK(last_token() == "--no-enable-prefix-caching");
  role["prefix_caching"] = "no";
  CHECK(export_test::refusal_of([&] { plan_from(document); }).key == "plans[1].roles[0].prefix_caching");
}

TEST_CASE("small instances share a node, each on its own devices and port") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  document["model"] = {
      {"name", "Qwen3-30B-A3B"}, {"num_layers", 48}, {"dense_layers", 0}, {"num_experts", 128}, {"shared_experts", 0}};
  nlohmann::json& role = document["plans"][1]["roles"][0];
  role["gpus"] = 2;
  role["instances"] = 4;
  role["layout"]["tp"] = 2;
  role["layout"]["dense_tp"] = 2;
  role["layout"]["lm_head_tp"] = 2;
  role["kv_cache_dtype"] = "fp8_e4m3";
  const PlanFile plan = plan_from(document);
  const auto nodes = assign_nodes(plan.plans[1], plan.scenario, {});
  REQUIRE(nodes.size() == 4);
  CHECK(nodes[2].node == 0);
  CHECK(nodes[2].devices == std::vector<std::int64_t>{4, 5});
  VllmSettings settings;
  settings.model_path = "Qwen/Qwen3-30B-A3B";
  const LaunchCommand command = vllm_launch(nodes[2], settings, VllmPlatform::cuda);
  CHECK(command.environment[0] == std::pair<std::string, std::string>("CUDA_VISIBLE_DEVICES", "4,5"));
  // The port is the endpoints' (endpoints.hpp): vLLM's 8000 plus the slot, 2.
  LaunchCommand served = command;
  add_endpoints(served, Engine::vllm, nodes[2], false, "NixlConnector");
  CHECK(served.value_of("--port") == "8002");
  CHECK(served.value_of("--host") == "0.0.0.0");
  CHECK(command.value_of("--kv-cache-dtype") == "fp8");
}

TEST_CASE("vLLM refuses what it cannot express") {
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  nlohmann::json& decode = document["plans"][0]["roles"][1];
  SUBCASE("EP other than 1 or TP x DP: vLLM has no EP-size flag") {
    nlohmann::json hybrid = plan_document("deepseek-v3-tp8-h200.json");
    hybrid["plans"][1]["roles"][0]["layout"]["ep"] = 4;
    const PlanFile plan = plan_from(hybrid);
    const auto refusal = export_test::refusal_of(
        [&] { check_vllm_role(plan, plan.plans[1].roles[0], kMainBranch, VllmPlatform::cuda); });
    CHECK(refusal.key == "plans[1].roles[0].layout.ep");
    CHECK(export_test::contains(refusal.message, "vLLM has no EP-size flag"));
  }
  SUBCASE("physical experts not divisible by EP") {
    decode["layout"]["redundant"] = 8;
    CHECK(refused_key(document, 1) == "layout.ep");
  }
  SUBCASE("a fused shared expert") {
    CHECK(refused_key(plan_document("deepseek-v3-tp8-h200.json"), 0) == "layout.fused_shared");
  }
  SUBCASE("dense layers split other than by attention TP") {
    decode["layout"]["dense_tp"] = 72;
    CHECK(refused_key(document, 1) == "layout.dense_tp");
  }
  SUBCASE("an LM head split other than by attention TP") {
    decode["layout"]["lm_head_tp"] = 72;
    CHECK(refused_key(document, 1) == "layout.lm_head_tp");
  }
  SUBCASE("O-projection and QKV-projection TP") {
    decode["layout"]["otp"] = 8;
    CHECK(refused_key(document, 1) == "layout.otp");
    decode["layout"]["otp"] = 1;
    decode["layout"]["qkvtp"] = 8;
    CHECK(refused_key(document, 1) == "layout.qkvtp");
  }
  SUBCASE("an attention TP group across nodes") {
    // tp = 3 does not divide DeepSeek-V3's 128 heads either; without the recorded heads (a plan written
    // before they were) the reader lets it through and vLLM's own rule is what refuses it.
    document["model"].erase("num_heads");
    document["model"].erase("num_kv_heads");
    decode["layout"]["tp"] = 3;
    decode["layout"]["dp"] = 24;
    decode["layout"]["ep"] = 72;
    decode["layout"]["dense_tp"] = 3;
    decode["layout"]["lm_head_tp"] = 3;
    CHECK(refused_key(document, 1) == "layout.tp");
  }
  SUBCASE("a release older than those documented [vllm-engine-args-docs]") {
    CHECK(refused_key(document, 1, 0, release(0, 8, 5)) == "--engine-version");
  }
}

TEST_CASE("vLLM refuses DeepEP and redundant experts without expert parallelism") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  nlohmann::json& role = document["plans"][1]["roles"][0];
  SUBCASE("DeepEP with ep = 1") {
    role["dispatch"] = "deepep_low_latency";
    CHECK(refused_key(document, 0, 1) == "dispatch");
  }
  SUBCASE("redundant experts with ep = 1") {
    role["layout"]["redundant"] = 8;
    CHECK(refused_key(document, 0, 1) == "layout.redundant");
  }
}
