// SGLang launch arguments, written by hand from [sglang-server-args], [sglang-server-args-docs],
// [sglang-parallel-state] and [sglang-ep-docs].
#include "export/flag_table.hpp"
#include "export/sglang/sglang.hpp"
#include "export/sglang/sglang_rules.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::node_of;
using export_test::plan_document;
using export_test::plan_from;
using Tokens = std::vector<std::string>;

namespace {

// Releases of each flag family (lib/export/flags/sglang.json): 0.4.7 spells EP and DeepEP with --enable-*,
// 0.5.6.post2 is the last release the table reads before main.
const EngineVersion k047 = release(0, 4, 7);
const EngineVersion k0562 = post_release(0, 5, 6, 2);

Tokens sglang_tokens(const PlanFile& plan, std::size_t role, std::int64_t node_rank, EngineVersion version,
                     std::size_t plan_index = 0, std::optional<std::string> expert_location = std::nullopt) {
  check_sglang_role(plan, plan.plans[plan_index].roles[role], version);
  SglangSettings settings;
  settings.version = version;
  settings.model_path = "deepseek-ai/DeepSeek-V3";
  return export_test::tokens(
      sglang_launch(plan, node_of(plan, role, node_rank, plan_index), settings, expert_location));
}

// The TP8 plan of [doc-000] with the shared expert unfused, on SGLang main.
const Tokens kUnfusedTp8Main = {"python3",
                                "-m",
                                "sglang.launch_server",
                                "--model-path",
                                "deepseek-ai/DeepSeek-V3",
                                "--tp-size",
                                "8",
                                "--disable-shared-experts-fusion",
                                "--mem-fraction-static",
                                "0.8",
                                "--max-running-requests",
                                "256",
                                "--chunked-prefill-size",
                                "8192",
                                "--cuda-graph-max-bs-decode",
                                "256",
                                "--kv-cache-dtype",
                                "bf16"};

// The refusal of role `role` of the edited plan of [doc-003]: its key relative to the role.
std::string refused_key(const nlohmann::json& document, std::size_t role, EngineVersion version = kMainBranch) {
  return export_test::refused_role_key(document, role, 0, [&](const PlanFile& plan, const RolePlan& refused) {
    check_sglang_role(plan, refused, version);
  });
}

}  // namespace

TEST_CASE("[doc-003] prefill: DP32 EP32 over 4 nodes, DeepEP normal, 32 redundant experts, TBO") {
  const PlanFile plan = export_test::plan_named("deepseek-v3-pd-h100.json");
  // --chunked-prefill-size is divided by dp_size under DP attention: 16384 per rank x 32 = 524288.
  const Tokens expected = {"python3",
                           "-m",
                           "sglang.launch_server",
                           "--model-path",
                           "deepseek-ai/DeepSeek-V3",
                           "--tp-size",
                           "32",
                           "--dp-size",
                           "32",
                           "--enable-dp-attention",
                           "--nnodes",
                           "4",
                           "--node-rank",
                           "2",
                           "--dist-init-addr",
                           "node0:5000",
                           "--ep-size",
                           "32",
                           "--moe-a2a-backend",
                           "deepep",
                           "--deepep-mode",
                           "normal",
                           "--moe-dense-tp-size",
                           "1",
                           "--enable-dp-lm-head",
                           "--ep-num-redundant-experts",
                           "32",
                           "--enable-eplb",
                           "--eplb-rebalance-num-iterations",
                           "1000",
                           "--disable-shared-experts-fusion",
                           "--enable-two-batch-overlap",
                           "--mem-fraction-static",
                           "0.85",
                           "--max-running-requests",
                           "8192",
                           "--chunked-prefill-size",
                           "524288",
                           "--disaggregation-mode",
                           "prefill",
                           "--kv-cache-dtype",
                           "bf16"};
  CHECK(sglang_tokens(plan, 0, 2, kMainBranch) == expected);
}

TEST_CASE("[doc-003] decode on SGLang 0.5 keeps --cuda-graph-max-bs and reads the expert-location file") {
  const PlanFile plan = export_test::plan_named("deepseek-v3-pd-h100.json");
  const Tokens expected = {"python3",
                           "-m",
                           "sglang.launch_server",
                           "--model-path",
                           "deepseek-ai/DeepSeek-V3",
                           "--tp-size",
                           "72",
                           "--dp-size",
                           "72",
                           "--enable-dp-attention",
                           "--nnodes",
                           "9",
                           "--node-rank",
                           "0",
                           "--dist-init-addr",
                           "node4:5000",
                           "--ep-size",
                           "72",
                           "--moe-a2a-backend",
                           "deepep",
                           "--deepep-mode",
                           "low_latency",
                           "--moe-dense-tp-size",
                           "1",
                           "--enable-dp-lm-head",
                           "--ep-num-redundant-experts",
                           "32",
                           "--init-expert-location",
                           "expert-location-decode.json",
                           "--enable-eplb",
                           "--eplb-rebalance-num-iterations",
                           "1000",
                           "--disable-shared-experts-fusion",
                           "--enable-two-batch-overlap",
                           "--mem-fraction-static",
                           "0.835",
                           "--max-running-requests",
                           "18432",
                           "--chunked-prefill-size",
                           "294912",
                           "--cuda-graph-max-bs",
                           "256",
                           "--disaggregation-mode",
                           "decode",
                           "--kv-cache-dtype",
                           "bf16"};
  CHECK(sglang_tokens(plan, 1, 0, k0562, 0, "expert-location-decode.json") == expected);
}

TEST_CASE("[doc-003] decode on SGLang 0.4.6 uses --enable-deepep-moe, which sets EP to the TP size") {
  const PlanFile plan = export_test::plan_named("deepseek-v3-pd-h100.json");
  const Tokens expected = {"python3",
                           "-m",
                           "sglang.launch_server",
                           "--model-path",
                           "deepseek-ai/DeepSeek-V3",
                           "--tp-size",
                           "72",
                           "--dp-size",
                           "72",
                           "--enable-dp-attention",
                           "--nnodes",
                           "9",
                           "--node-rank",
                           "8",
                           "--dist-init-addr",
                           "node4:5000",
                           "--enable-deepep-moe",
                           "--deepep-mode",
                           "low_latency",
                           "--moe-dense-tp-size",
                           "1",
                           "--enable-dp-lm-head",
                           "--ep-num-redundant-experts",
                           "32",
                           "--enable-eplb",
                           "--eplb-rebalance-num-iterations",
                           "1000",
                           "--disable-shared-experts-fusion",
                           "--enable-two-batch-overlap",
                           "--mem-fraction-static",
                           "0.835",
                           "--max-running-requests",
                           "18432",
                           "--chunked-prefill-size",
                           "294912",
                           "--cuda-graph-max-bs",
                           "256",
                           "--disaggregation-mode",
                           "decode"};
  CHECK(sglang_tokens(plan, 1, 8, k047) == expected);
}

TEST_CASE("[doc-000]: TP8 on one H200 node, the shared expert fused as SGLang does by default") {
  const PlanFile plan = export_test::plan_named("deepseek-v3-tp8-h200.json");
  const Tokens fused = {"python3",
                        "-m",
                        "sglang.launch_server",
                        "--model-path",
                        "deepseek-ai/DeepSeek-V3",
                        "--tp-size",
                        "8",
                        "--mem-fraction-static",
                        "0.8",
                        "--max-running-requests",
                        "256",
                        "--chunked-prefill-size",
                        "8192",
                        "--cuda-graph-max-bs-decode",
                        "256",
                        "--kv-cache-dtype",
                        "bf16"};
  CHECK(sglang_tokens(plan, 0, 0, kMainBranch, 0) == fused);
  CHECK(sglang_tokens(plan, 0, 0, kMainBranch, 1) == kUnfusedTp8Main);
}

TEST_CASE("[doc-000] on SGLang 0.4.6: one fused replica per TP rank is --n-share-experts-fusion 8") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  document["plans"][0]["roles"][0]["layout"]["fused_shared"] = 8;
  document["plans"][0]["roles"][0]["kv_cache_dtype"] = "fp8_e4m3";
  const PlanFile plan = plan_from(document);
  const Tokens expected = {"python3",
                           "-m",
                           "sglang.launch_server",
                           "--model-path",
                           "deepseek-ai/DeepSeek-V3",
                           "--tp-size",
                           "8",
                           "--n-share-experts-fusion",
                           "8",
                           "--mem-fraction-static",
                           "0.8",
                           "--max-running-requests",
                           "256",
                           "--chunked-prefill-size",
                           "8192",
                           "--cuda-graph-max-bs",
                           "256",
                           "--kv-cache-dtype",
                           "fp8_e4m3"};
  CHECK(sglang_tokens(plan, 0, 0, release(0, 4, 6)) == expected);
  // After 0.4.6.post5 SGLang fuses exactly n_shared_experts = 1.
  CHECK(refused_key(document, 0, kMainBranch) == "layout.fused_shared");
}

TEST_CASE("hybrid EP with standard dispatch: --ep-size below --tp-size, graphs off") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  nlohmann::json& role = document["plans"][1]["roles"][0];
  role["layout"]["ep"] = 4;
  role["cuda_graph_max_batch"] = 0;
  const PlanFile plan = plan_from(document);
  const Tokens expected = {"python3",
                           "-m",
                           "sglang.launch_server",
                           "--model-path",
                           "deepseek-ai/DeepSeek-V3",
                           "--tp-size",
                           "8",
                           "--ep-size",
                           "4",
                           "--disable-shared-experts-fusion",
                           "--mem-fraction-static",
                           "0.8",
                           "--max-running-requests",
                           "256",
                           "--chunked-prefill-size",
                           "8192",
                           "--disable-cuda-graph",
                           "--kv-cache-dtype",
                           "bf16"};
  CHECK(sglang_tokens(plan, 0, 0, kMainBranch, 1) == expected);
  // 0.4's --enable-ep-moe cannot express EP 4 on 8 ranks.
  const std::string key = export_test::refusal_of([&] { check_sglang_role(plan, plan.plans[1].roles[0], k047); }).key;
  CHECK(key == "plans[1].roles[0].layout.ep");
}

TEST_CASE("forced fusion beside two-batch overlap is refused on main [sglang-fusion-overlap]") {
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  document["plans"][0]["roles"][1]["layout"]["fused_shared"] = 1;  // [doc-003]'s decode runs TBO
  CHECK(refused_key(document, 1) == "layout.fused_shared");
}

TEST_CASE("DeepEP with fusion needs --enforce-shared-experts-fusion, main only") {
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  document["plans"][0]["roles"][1]["layout"]["fused_shared"] = 1;
  document["plans"][0]["roles"][1]["two_batch_overlap"] = false;
  const PlanFile plan = plan_from(document);
  const Tokens tokens = sglang_tokens(plan, 1, 0, kMainBranch);
  CHECK(std::find(tokens.begin(), tokens.end(), "--enforce-shared-experts-fusion") != tokens.end());
  CHECK(std::find(tokens.begin(), tokens.end(), "--disable-shared-experts-fusion") == tokens.end());
  // 0.5.6.post2 has no --enforce-shared-experts-fusion and turns fusion off under DeepEP
  // (deepseek_v2.py@5c8bd8b51:3298): the flag table's constraint refuses the command the writer makes.
  SglangSettings settings;
  settings.version = k0562;
  settings.model_path = "m";
  const LaunchCommand command = sglang_launch(plan, node_of(plan, 1, 0), settings, std::nullopt);
  const auto problems = check_command(Engine::sglang, k0562, command, plan_facts(plan, plan.plans[0].roles[1]));
  CHECK(std::any_of(problems.begin(), problems.end(),
                    [](const TableProblem& problem) { return problem.subject == "fusion-off-under-ep"; }));
}

TEST_CASE("SGLang refuses what it would reject [sglang-server-args]") {
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  nlohmann::json& decode = document["plans"][0]["roles"][1];
  SUBCASE("rule 1: DeepEP forces ep = tp") {
    decode["layout"]["ep"] = 36;
    CHECK(refused_key(document, 1) == "layout.ep");
  }
  SUBCASE("rule 10: physical experts divisible by ep") {
    decode["layout"]["redundant"] = 0;  // 256 slots over 72 ranks
    CHECK(refused_key(document, 1) == "layout.ep");
  }
  SUBCASE("rule 6: dense TP only 1 or the TP size") {
    decode["layout"]["dense_tp"] = 8;
    CHECK(refused_key(document, 1) == "layout.dense_tp");
  }
  SUBCASE("rule 4: DeepEP normal disables CUDA graphs") {
    decode["dispatch"] = "deepep_normal";
    CHECK(refused_key(document, 1) == "cuda_graph_max_batch");
  }
  SUBCASE("no O-projection or QKV-projection TP") {
    decode["layout"]["otp"] = 4;
    CHECK(refused_key(document, 1) == "layout.otp");
    decode["layout"]["otp"] = 1;
    decode["layout"]["qkvtp"] = 4;
    CHECK(refused_key(document, 1) == "layout.qkvtp");
  }
  SUBCASE("an LM head split neither over attention TP nor over all ranks") {
    decode["layout"]["lm_head_tp"] = 8;
    CHECK(refused_key(document, 1) == "layout.lm_head_tp");
  }
  SUBCASE("fusion only on SGLang's allow-list") {
    document["model"]["name"] = "Kimi-K2-Instruct";
    document["model"]["num_experts"] = 384;
    decode["dispatch"] = "standard";
    decode["two_batch_overlap"] = false;
    decode["layout"]["fused_shared"] = 1;
    decode["layout"]["redundant"] = 48;  // 432 slots, 6 per rank
    CHECK(refused_key(document, 1) == "layout.fused_shared");
  }
}

TEST_CASE("rule 5: DP LM head needs DP attention") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  document["plans"][1]["roles"][0]["layout"]["lm_head_tp"] = 1;
  const PlanFile plan = plan_from(document);
  const auto refusal = export_test::refusal_of([&] { check_sglang_role(plan, plan.plans[1].roles[0], kMainBranch); });
  CHECK(refusal.key == "plans[1].roles[0].layout.lm_head_tp");
  CHECK(export_test::contains(refusal.message, "--enable-dp-lm-head needs --enable-dp-attention"));
}

TEST_CASE("rule 11: two-batch overlap without an all-to-all backend needs DP attention") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  document["plans"][1]["roles"][0]["two_batch_overlap"] = true;
  const PlanFile plan = plan_from(document);
  const auto refusal = export_test::refusal_of([&] { check_sglang_role(plan, plan.plans[1].roles[0], kMainBranch); });
  CHECK(refusal.key == "plans[1].roles[0].two_batch_overlap");
}

TEST_CASE("rule 9: redundant experts need ep > 1") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  document["plans"][1]["roles"][0]["layout"]["redundant"] = 8;
  const PlanFile plan = plan_from(document);
  const auto refusal = export_test::refusal_of([&] { check_sglang_role(plan, plan.plans[1].roles[0], kMainBranch); });
  CHECK(refusal.key == "plans[1].roles[0].layout.redundant");
}

// kv_block_tokens 64 and graph sizes {8, 16, 24} on the unfused plan of [doc-000]: --page-size 64 (64 divides the
// 8192-token chunk), the list under its release's name, and the graph max set to the list's largest, 24.
TEST_CASE("a role's KV page and captured graph sizes reach the SGLang command [sglang-server-args]") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  nlohmann::json& role = document["plans"][1]["roles"][0];
  role["kv_block_tokens"] = 64;
  role["graph_batch_sizes"] = {8, 16, 24};
  const PlanFile plan = plan_from(document);
  const Tokens on_0_5 = {"python3",
                         "-m",
                         "sglang.launch_server",
                         "--model-path",
                         "deepseek-ai/DeepSeek-V3",
                         "--tp-size",
                         "8",
                         "--disable-shared-experts-fusion",
                         "--mem-fraction-static",
                         "0.8",
                         "--max-running-requests",
                         "256",
                         "--chunked-prefill-size",
                         "8192",
                         "--page-size",
                         "64",
                         "--cuda-graph-max-bs",
                         "24",
                         "--cuda-graph-bs",
                         "8",
                         "16",
                         "24",
                         "--kv-cache-dtype",
                         "bf16"};
  CHECK(sglang_tokens(plan, 0, 0, k0562, 1) == on_0_5);
  const Tokens on_main = {"python3",
                          "-m",
                          "sglang.launch_server",
                          "--model-path",
                          "deepseek-ai/DeepSeek-V3",
                          "--tp-size",
                          "8",
                          "--disable-shared-experts-fusion",
                          "--mem-fraction-static",
                          "0.8",
                          "--max-running-requests",
                          "256",
                          "--chunked-prefill-size",
                          "8192",
                          "--page-size",
                          "64",
                          "--cuda-graph-max-bs-decode",
                          "24",
                          "--cuda-graph-bs-decode",
                          "8",
                          "16",
                          "24",
                          "--kv-cache-dtype",
                          "bf16"};
  CHECK(sglang_tokens(plan, 0, 0, kMainBranch, 1) == on_main);
  // 0.4.6 keeps only listed sizes up to the max, so the max of 24 is what captures the whole list.
  const Tokens on_0_4 = {"python3",
                         "-m",
                         "sglang.launch_server",
                         "--model-path",
                         "deepseek-ai/DeepSeek-V3",
                         "--tp-size",
                         "8",
                         "--disable-shared-experts-fusion",
                         "--mem-fraction-static",
                         "0.8",
                         "--max-running-requests",
                         "256",
                         "--chunked-prefill-size",
                         "8192",
                         "--page-size",
                         "64",
                         "--cuda-graph-max-bs",
                         "24",
                         "--cuda-graph-bs",
                         "8",
                         "16",
                         "24"};
  CHECK(sglang_tokens(plan, 0, 0, k047, 1) == on_0_4);

  // The script passes each size as its own argument.
  SglangSettings settings;
  settings.model_path = "deepseek-ai/DeepSeek-V3";
  const LaunchCommand command = sglang_launch(plan, node_of(plan, 0, 0, 1), settings, std::nullopt);
  CHECK(export_test::contains(render_script(command, "x"), "--cuda-graph-bs-decode 8 16 24 \\\n"));
  CHECK(command.value_of("--cuda-graph-bs-decode") == "8 16 24");
}

TEST_CASE("kv_block_tokens 1 and no graph sizes pass neither --page-size nor a size list") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  nlohmann::json& role = document["plans"][1]["roles"][0];
  role["kv_block_tokens"] = 1;
  role["graph_batch_sizes"] = nlohmann::json::array();
  CHECK(sglang_tokens(plan_from(document), 0, 0, kMainBranch, 1) == kUnfusedTp8Main);
}

TEST_CASE("a plan with the prefix cache off disables SGLang's radix cache") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  document["plans"][1]["roles"][0]["prefix_caching"] = false;
  const Tokens tokens = sglang_tokens(plan_from(document), 0, 0, kMainBranch, 1);
  CHECK(std::count(tokens.begin(), tokens.end(), "--disable-radix-cache") == 1);
  document["plans"][1]["roles"][0]["prefix_caching"] = true;
  CHECK(sglang_tokens(plan_from(document), 0, 0, kMainBranch, 1) == kUnfusedTp8Main);
}

TEST_CASE("graph sizes stay off a prefill role and a role with graphs off; the page size does not") {
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  for (nlohmann::json& role : document["plans"][0]["roles"]) {
    role["kv_block_tokens"] = 64;
    role["graph_batch_sizes"] = {8, 16, 24};
  }
  document["plans"][0]["roles"][1]["cuda_graph_max_batch"] = 0;
  const PlanFile plan = plan_from(document);
  const auto has = [](const Tokens& tokens, const std::string& token) {
    return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
  };
  for (const std::size_t role : {std::size_t{0}, std::size_t{1}}) {
    const Tokens tokens = sglang_tokens(plan, role, 0, kMainBranch);
    const auto page = std::find(tokens.begin(), tokens.end(), "--page-size");
    REQUIRE(page != tokens.end());
    CHECK(*(page + 1) == "64");
    CHECK_FALSE(has(tokens, "--cuda-graph-bs-decode"));
    CHECK_FALSE(has(tokens, "--cuda-graph-max-bs-decode"));
    CHECK(has(tokens, "--disable-cuda-graph") == (role == 1));
  }
}

// [sglang-server-args], on the chunk per DP rank: [doc-003] decode holds 4096 tokens per rank, 294912 over
// dp 72. A page of 3 divides 294912 (72 = 3 x 24) but not 4096 (3 x 1365 = 4095), so SGLang, which checks
// after dividing by dp_size, would reject it; a page of 64 divides both (4096 = 64 x 64).
TEST_CASE("the chunked prefill size must be a multiple of the page size") {
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  nlohmann::json& decode = document["plans"][0]["roles"][1];
  decode["kv_block_tokens"] = 3;
  const PlanFile plan = plan_from(document);
  const auto refusal = export_test::refusal_of([&] { check_sglang_role(plan, plan.plans[0].roles[1], kMainBranch); });
  CHECK(refusal.key == "plans[0].roles[1].chunked_prefill_tokens");
  CHECK(export_test::contains(refusal.message, "a multiple of kv_block_tokens = 3"));
  CHECK(export_test::contains(refusal.message, "--page-size, got 4096"));
  decode["kv_block_tokens"] = 64;
  CHECK(refused_key(document, 1) == "");
}

TEST_CASE("flag names per SGLang release [sglang-server-args-docs]") {
  // 0.4.10.post2 (8cd344586) adds --moe-a2a-backend and deprecates --enable-ep-moe for --ep-size.
  CHECK(sglang_flag(SglangSetting::expert_parallel, SglangRelease::v0_4) == "--enable-ep-moe");
  CHECK(sglang_flag(SglangSetting::expert_parallel, SglangRelease::v0_5) == "--ep-size");
  CHECK(sglang_flag(SglangSetting::deepep, SglangRelease::v0_4) == "--enable-deepep-moe");
  CHECK(sglang_flag(SglangSetting::deepep, SglangRelease::main) == "--moe-a2a-backend");
  CHECK(sglang_release(parse_engine_version("0.4.6.post1", "x")) == SglangRelease::v0_4);
  CHECK(sglang_release(parse_engine_version("0.4.10.post1", "x")) == SglangRelease::v0_4);
  CHECK(sglang_release(parse_engine_version("0.4.10.post2", "x")) == SglangRelease::v0_5);
  CHECK(sglang_release(parse_engine_version("v0.5.4", "x")) == SglangRelease::v0_5);
  CHECK(sglang_release(parse_engine_version("main", "x")) == SglangRelease::main);
  // The table starts at 0.4.5 (57f99608f).
  CHECK(export_test::refusal_of([] { sglang_release(parse_engine_version("0.4.4", "x")); }).key == "--engine-version");
}

TEST_CASE("SGLang on Ascend: --device npu, the ascend attention backend and DeepEP's limits [sglang-ep-docs]") {
  nlohmann::json document = plan_document("qwen3-235b-pd-otp4-910b.json");
  nlohmann::json& decode = document["plans"][0]["roles"][1];
  decode["layout"]["otp"] = 1;
  decode["dispatch"] = "deepep_low_latency";
  const PlanFile plan = plan_from(document);
  check_sglang_role(plan, plan.plans[0].roles[1], kMainBranch);
  SglangSettings settings;
  settings.model_path = "Qwen/Qwen3-235B-A22B";
  const Tokens expected = {"python3",
                           "-m",
                           "sglang.launch_server",
                           "--model-path",
                           "Qwen/Qwen3-235B-A22B",
                           "--device",
                           "npu",
                           "--attention-backend",
                           "ascend",
                           "--tp-size",
                           "16",
                           "--dp-size",
                           "16",
                           "--enable-dp-attention",
                           "--ep-size",
                           "16",
                           "--moe-a2a-backend",
                           "deepep",
                           "--deepep-mode",
                           "low_latency",
                           "--enable-dp-lm-head",
                           "--mem-fraction-static",
                           "0.9",
                           "--max-running-requests",
                           "768",
                           "--chunked-prefill-size",
                           "65536",
                           "--cuda-graph-max-bs-decode",
                           "48",
                           "--disaggregation-mode",
                           "decode",
                           "--kv-cache-dtype",
                           "bf16"};
  CHECK(export_test::tokens(sglang_launch(plan, node_of(plan, 1, 0), settings, std::nullopt)) == expected);

  decode["max_batch_per_dp_rank"] = 600;
  CHECK(refused_key(document, 1) == "max_batch_per_dp_rank");
  nlohmann::json& prefill = document["plans"][0]["roles"][0];
  prefill["dispatch"] = "deepep_normal";  // 8192 per rank x dp 16 = 131072 > 8192
  CHECK(refused_key(document, 0) == "chunked_prefill_tokens");
}
