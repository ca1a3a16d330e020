// The release-by-release cases of issue 36, each expected value worked out from the engine source the
// flag table cites (lib/export/flags/*.json, [sglang-release-history], [vllm-release-history],
// [vllm-ascend-release-tags]): a flag a release lacks, a value it refuses, a combination it refuses or
// runs wrongly, and what export writes or refuses for it.
#include <deque>

#include "export/endpoints.hpp"
#include "export/exporter.hpp"
#include "export/flag_table.hpp"
#include "export/node_assignment.hpp"
#include "export/sglang/sglang_rules.hpp"
#include "export/vllm_ascend/vllm_ascend.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::contains;
using export_test::plan_document;
using export_test::plan_from;
using export_test::refusal_of;

namespace {

struct Outcome {
  std::string refusal;  // the message when refused, else ""
  ExportResult result;
};

Outcome export_at(const nlohmann::json& document, Engine engine, const std::string& version,
                  const std::string& kv_connector = "") {
  static std::deque<PlanFile> plans;  // each result points into its plan
  plans.push_back(plan_from(document));
  ExportRequest request;
  request.engine = engine;
  request.version = parse_engine_version(version, "test");
  request.model_path = "org/model";
  request.network_interface = "eth0";  // vllm-ascend PD: the sockets' NIC
  request.kv_connector = kv_connector;
  Outcome outcome;
  outcome.refusal = refusal_of([&] { outcome.result = export_plan(plans.back(), request); }).message;
  return outcome;
}

std::string script(const Outcome& outcome, const std::string& name) {
  for (const OutputFile& file : outcome.result.files) {
    if (file.name == name) return file.contents;
  }
  FAIL("no file " << name << "; refusal: " << outcome.refusal);
  return "";
}

// [doc-000]'s TP8 plans: plans[0] fuses the shared expert, plans[1] does not.
nlohmann::json tp8(std::size_t keep) {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  nlohmann::json plan = document["plans"][keep];
  document["plans"] = nlohmann::json::array({plan});
  return document;
}

nlohmann::json without_overlap(nlohmann::json document) {
  for (auto& role : document["plans"][0]["roles"]) role["two_batch_overlap"] = false;
  return document;
}

}  // namespace

TEST_CASE("SGLang --kv-cache-dtype bf16 from 0.5.4; before, auto with a note") {
  // server_args.py@1053e1be1:1789 (0.5.4) adds "bf16" to the choices; 0.5.3 (a4a3d8239) lists auto and fp8 only.
  const std::string before = script(export_at(tp8(1), Engine::sglang, "0.5.3"), "aggregated-0-node0.sh");
  CHECK_FALSE(contains(before, "    --kv-cache-dtype"));
  CHECK(contains(before, "# note: the KV cache stays at --kv-cache-dtype auto"));
  CHECK(contains(script(export_at(tp8(1), Engine::sglang, "0.5.4"), "aggregated-0-node0.sh"), "--kv-cache-dtype bf16"));
}

TEST_CASE("SGLang --enable-two-batch-overlap arrived in 0.4.7") {
  nlohmann::json document = tp8(1);
  nlohmann::json& role = document["plans"][0]["roles"][0];
  role["layout"]["ep"] = 8;
  role["dispatch"] = "deepep_low_latency";
  role["two_batch_overlap"] = true;
  // server_args.py@4f723edd3:1210 (0.4.7) registers the flag; 0.4.6 (84022c0e5) does not.
  const std::string refusal = export_at(document, Engine::sglang, "0.4.6").refusal;
  CHECK(contains(refusal, "--enable-two-batch-overlap"));
  CHECK(contains(refusal, "nearest release that runs it is --engine-version 0.4.7"));
}

TEST_CASE("SGLang two-batch overlap with standard dispatch: a crash to 0.5.6.post2, a refusal from 0.5.7 and on main") {
  nlohmann::json document = tp8(1);
  nlohmann::json& role = document["plans"][0]["roles"][0];
  role["layout"]["tp"] = 1;
  role["layout"]["dp"] = 8;
  role["layout"]["ep"] = 8;
  role["two_batch_overlap"] = true;
  // [sglang-tbo-dispatch]: v0.5.6.post2 deepseek_v2.py:1168-1174 calls dispatch_a, which the standard
  // dispatcher lacks; v0.5.7 server_args.py:4665-4667 refuses it; DP attention does not help on main.
  const std::string crash = export_at(document, Engine::sglang, "0.5.6.post2").refusal;
  CHECK(contains(crash, "two_batch_overlap: expected false without DeepEP"));
  CHECK(contains(crash, "crashes on the first split batch"));
  CHECK(contains(export_at(document, Engine::sglang, "0.5.7").refusal, "refuses it in check_server_args"));
  CHECK(contains(export_at(document, Engine::sglang, "main").refusal, "two_batch_overlap"));
  role["dispatch"] = "deepep_low_latency";
  CHECK(export_at(document, Engine::sglang, "0.5.6.post2").refusal.empty());
}

TEST_CASE("SGLang 0.4.5.post2 to 0.4.6.post5: no off switch for fusion, and replicas must equal tp") {
  // deepseek_v2.py@fbdc94ba5:1430: with n_share_experts_fusion 0 the engine fuses DeepSeek-V3 on SM 9.0 anyway;
  // 0.4.5.post1 still has --disable-shared-experts-fusion (server_args.py@5b5c7237c).
  const std::string unfused = export_at(tp8(1), Engine::sglang, "0.4.6").refusal;
  CHECK(contains(unfused, "unfused-plan-fused-anyway"));
  CHECK(contains(unfused, "--engine-version 0.4.5.post1"));
  // deepseek_v2.py@fbdc94ba5:1428 asserts n_share_experts_fusion == tp_size: one replica (ep 1) is not 8.
  const std::string replicas = export_at(tp8(0), Engine::sglang, "0.4.6").refusal;
  CHECK(contains(replicas, "n-share-equals-tp"));
  CHECK(contains(replicas, "--engine-version 0.4.5.post1"));
}

TEST_CASE("SGLang flags [doc-003]'s PD plan needs, by release") {
  const nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  // --moe-dense-tp-size from 0.4.5.post2, --enable-dp-lm-head from 0.4.6.post4, the EPLB flags from
  // 0.4.6.post5, two-batch overlap from 0.4.7: 0.4.7 is the first release with all of them.
  CHECK(contains(export_at(document, Engine::sglang, "0.4.5").refusal, "--moe-dense-tp-size"));
  CHECK(contains(export_at(document, Engine::sglang, "0.4.6.post3").refusal, "--enable-dp-lm-head"));
  const std::string eplb = export_at(document, Engine::sglang, "0.4.6.post4").refusal;
  CHECK(contains(eplb, "--ep-num-redundant-experts"));
  CHECK(contains(eplb, "--engine-version 0.4.7"));
}

TEST_CASE("SGLang on Ascend: the ascend attention backend from 0.4.9, its transfer backend from 0.4.9.post2") {
  nlohmann::json document = plan_document("qwen3-235b-pd-otp4-910b.json");
  document["plans"][0]["roles"][1]["layout"]["otp"] = 1;
  const std::string refusal = export_at(document, Engine::sglang, "0.4.8").refusal;
  CHECK(contains(refusal, "--attention-backend"));
  CHECK(contains(refusal, "--engine-version 0.4.9.post2"));
  const std::string prefill = script(export_at(document, Engine::sglang, "main"), "prefill-0-node0.sh");
  CHECK(contains(prefill, "--disaggregation-transfer-backend ascend"));
}

TEST_CASE("SGLang redundant experts with standard dispatch: wrong output before 0.5.17, fixed from 0.5.17") {
  nlohmann::json document = tp8(1);
  nlohmann::json& role = document["plans"][0]["roles"][0];
  role["layout"]["ep"] = 8;
  role["layout"]["redundant"] = 8;  // (256 + 8) / 8 = 33 slots per rank
  role["layout"]["fused_shared"] = 0;
  // [sglang-eplb-standard-fix]: each rank picked its own replica before 06ccaef24a (first in v0.5.17).
  const std::string before = export_at(document, Engine::sglang, "0.5.6.post2").refusal;
  CHECK(contains(before, "layout.redundant: expected 0 with standard dispatch before SGLang 0.5.17"));
  CHECK(export_at(document, Engine::sglang, "0.5.17").refusal.empty());
  CHECK(export_at(document, Engine::sglang, "main").refusal.empty());
}

TEST_CASE("SGLang fused shared expert under EP: main enforces it, 0.5 releases would run it unfused") {
  nlohmann::json document = tp8(0);
  document["plans"][0]["roles"][0]["layout"]["ep"] = 8;
  // deepseek_v2.py@5c8bd8b51:3294 turns fusion off under EP on NVIDIA; main's --enforce-shared-experts-fusion
  // skips that check.
  const std::string refusal = export_at(document, Engine::sglang, "0.5.6.post2").refusal;
  CHECK(contains(refusal, "fusion-off-under-ep"));
  CHECK(contains(refusal, "--engine-version main"));
  CHECK(contains(script(export_at(document, Engine::sglang, "main"), "aggregated-0-node0.sh"),
                 "--enforce-shared-experts-fusion"));
}

TEST_CASE("vLLM: the all-to-all backend is a variable until 0.11.0, a flag from 0.11.1") {
  const nlohmann::json document = without_overlap(plan_document("deepseek-v3-pd-h100.json"));
  // 3e051bda8 (2025-10-13, after 0.11.0) added --all2all-backend.
  const std::string old_script = script(export_at(document, Engine::vllm, "0.11.0"), "decode-0-node0.sh");
  CHECK(contains(old_script, "export VLLM_ALL2ALL_BACKEND=deepep_low_latency"));
  CHECK_FALSE(contains(old_script, "--all2all-backend"));
  CHECK(contains(script(export_at(document, Engine::vllm, "0.11.1"), "decode-0-node0.sh"),
                 "--all2all-backend deepep_low_latency"));
}

TEST_CASE("vLLM: EPLB from 0.9.2, DeepEP backends from 0.9.1") {
  const nlohmann::json document = without_overlap(plan_document("deepseek-v3-pd-h100.json"));
  // e9fd658a7 (2025-06-26) added --enable-eplb; the v0.9.2 tag has it at arg_utils.py:687.
  const std::string eplb = export_at(document, Engine::vllm, "0.9.1").refusal;
  CHECK(contains(eplb, "--enable-eplb"));
  CHECK(contains(eplb, "--engine-version 0.9.2"));
  // envs.py at v0.9.0.1+rocm lists naive and pplx only; deepep_* came with fa98d7777 (0.9.1).
  CHECK(contains(export_at(document, Engine::vllm, "0.9.0").refusal, "VLLM_ALL2ALL_BACKEND"));
}

TEST_CASE("vLLM dual-batch overlap needs a DeepEP backend") {
  // vllm/config/vllm.py@28be48fa944d:1366 asserts deepep_low_latency or deepep_high_throughput; 0.11.0 asserted
  // low latency alone (567939953), so [doc-003]'s high-throughput prefill needs 0.11.1.
  const std::string prefill = export_at(plan_document("deepseek-v3-pd-h100.json"), Engine::vllm, "0.11.0").refusal;
  CHECK(contains(prefill, "dbo-needs-deepep-low-latency"));
  CHECK(contains(prefill, "--engine-version 0.11.1"));
  nlohmann::json document = tp8(1);
  document["plans"][0]["roles"][0]["two_batch_overlap"] = true;
  const std::string standard = export_at(document, Engine::vllm, "main").refusal;
  CHECK(contains(standard, "dbo-needs-deepep"));
  CHECK(contains(standard, "no release in the table runs it"));
}

TEST_CASE("vllm-ascend: the Mooncake connector, never NIXL") {
  const nlohmann::json document = plan_document("qwen3-235b-pd-otp4-910b.json");
  const std::string decode = script(export_at(document, Engine::vllm_ascend, "main"), "decode-0-node0.sh");
  CHECK(contains(decode, R"("kv_connector":"MooncakeConnectorV1")"));
  CHECK(contains(decode, R"("decode":{"dp_size":16,"tp_size":1})"));
  const std::string refusal = export_at(document, Engine::vllm_ascend, "main", "NixlConnector").refusal;
  CHECK(contains(refusal, "kv_connector"));
  CHECK(contains(refusal, "no release in the table runs it"));
}

TEST_CASE(
    "vllm-ascend PD: the connector module before 0.11.0rc0, the sockets' NIC always [vllm-ascend-mooncake-guide]") {
  nlohmann::json document = plan_document("qwen3-235b-pd-otp4-910b.json");
  document["plans"][0]["roles"][1]["layout"]["otp"] = 1;  // O-projection TP is no part of this check
  // v0.10.2rc1's guide line 58 names the module; v0.11.0rc0 registers the name when the plugin loads.
  const std::string older = script(export_at(document, Engine::vllm_ascend, "0.10.2rc1"), "decode-0-node0.sh");
  CHECK(contains(older, R"("kv_connector_module_path":"vllm_ascend.distributed.mooncake_connector")"));
  const std::string newer = script(export_at(document, Engine::vllm_ascend, "0.11.0rc0"), "decode-0-node0.sh");
  CHECK_FALSE(contains(newer, "kv_connector_module_path"));
  // Lines 28-33: HCCL's timeouts 204 s and 120 s and the three sockets on the NIC (eth0 in these tests).
  for (const std::string& text : {older, newer}) {
    CHECK(contains(text, "export HCCL_SOCKET_IFNAME=eth0\n"));
    CHECK(contains(text, "export GLOO_SOCKET_IFNAME=eth0\n"));
    CHECK(contains(text, "export TP_SOCKET_IFNAME=eth0\n"));
    CHECK(contains(text, "export HCCL_EXEC_TIMEOUT=204\n"));
    CHECK(contains(text, "export HCCL_CONNECT_TIMEOUT=120\n"));
  }
}

TEST_CASE("vllm-ascend O-projection TP needs the recompute scheduler from 0.23.0rc1") {
  const nlohmann::json document = plan_document("qwen3-235b-pd-otp4-910b.json");
  // ascend_config.py@v0.23.0:152 raises without recompute_scheduler_enable; v0.22.1rc1 has no such check.
  const std::string current = script(export_at(document, Engine::vllm_ascend, "main"), "decode-0-node0.sh");
  CHECK(contains(current, R"("recompute_scheduler_enable":true)"));
  CHECK(contains(current, "# note: recompute_scheduler_enable is on"));
  const std::string older = script(export_at(document, Engine::vllm_ascend, "0.22.1rc1"), "decode-0-node0.sh");
  CHECK_FALSE(contains(older, "recompute_scheduler_enable"));
}

TEST_CASE("vllm-ascend torchair_graph_config: not read from 0.12.0rc1, refused for Qwen before 0.10.1rc1") {
  nlohmann::json document = plan_document("qwen3-235b-pd-otp4-910b.json");
  document["plans"][0]["roles"][1]["graph_batch_sizes"] = {8, 16, 48};
  const std::string dropped = script(export_at(document, Engine::vllm_ascend, "0.12.0rc1"), "decode-0-node0.sh");
  CHECK_FALSE(contains(dropped, R"("torchair_graph_config":)"));
  CHECK(contains(dropped, "# note: the plan's captured batch sizes are not written"));
  CHECK(contains(script(export_at(document, Engine::vllm_ascend, "0.11.0"), "decode-0-node0.sh"),
                 R"("graph_batch_sizes":[8,16,48])"));
  // ascend_config.py@v0.10.0rc1:20 lists deepseek, pangu and kimi_k2 for torchair; qwen joined in v0.10.1rc1.
  document["plans"][0]["roles"][1]["layout"]["otp"] = 1;
  const PlanFile plan = plan_from(document);
  const auto nodes = assign_nodes(plan.plans[0], plan.scenario, {});
  VllmSettings settings;
  settings.version = parse_engine_version("0.10.0rc1", "test");
  settings.network_interface = "eth0";
  settings.model_path = "Qwen/Qwen3-235B-A22B";
  const LaunchCommand decode = vllm_ascend_launch(plan, nodes[1], settings);
  const auto problems = check_command(Engine::vllm_ascend, settings.version, decode, plan_facts(plan, *nodes[1].role));
  CHECK(std::any_of(problems.begin(), problems.end(),
                    [](const TableProblem& problem) { return problem.subject == "torchair-not-for-qwen"; }));
}

TEST_CASE("SGLang PD front: mini_lb to 0.4.7.post1, the router's PD flags from 0.4.8 [sglang-mini-lb]") {
  const nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  // [doc-003]: one prefill instance (node0, port 30000, bootstrap 8998) and one decode instance (node4).
  const std::string before = script(export_at(document, Engine::sglang, "0.4.7.post1"), "router.sh");
  CHECK(contains(before, "exec python3 -m sglang.srt.disaggregation.mini_lb \\\n"));
  CHECK(contains(before, "--prefill http://node0:30000 \\\n"));
  CHECK(contains(before, "--prefill-bootstrap-ports 8998 \\\n"));
  CHECK(contains(before, "--decode http://node4:30000 \\\n"));
  CHECK_FALSE(contains(before, "--pd-disaggregation"));
  const std::string after = script(export_at(document, Engine::sglang, "0.4.8"), "router.sh");
  CHECK(contains(after, "exec python3 -m sglang_router.launch_router \\\n    --pd-disaggregation"));
  CHECK_FALSE(contains(after, "pip install"));
}

// Two prefill instances and two decode instances, one node rank each: prefill on `prefill_hosts` (an instance
// on a node it shares takes slot 1: HTTP port 30000 + 1, bootstrap port 8998 + 1), decode on node2 and node3.
std::vector<NodeLaunch> two_by_two(const RolePlan& prefill, const RolePlan& decode,
                                   const std::vector<std::string>& prefill_hosts, std::int64_t second_slot) {
  return {{&prefill, 0, 0, 0, prefill_hosts[0], prefill_hosts[0], 0, {}},
          {&prefill, 1, 0, 1, prefill_hosts[1], prefill_hosts[1], second_slot, {}},
          {&decode, 0, 0, 2, "node2", "node2", 0, {}},
          {&decode, 1, 0, 3, "node3", "node3", 0, {}}};
}

std::vector<std::string> mini_lb_tokens(const std::vector<NodeLaunch>& nodes, const std::string& version) {
  const auto command = router_launch(Engine::sglang, nodes, parse_engine_version(version, "test"));
  REQUIRE(command.has_value());
  const auto problems = check_command(Engine::sglang, parse_engine_version(version, "test"), *command, {});
  CHECK(problems.empty());
  return export_test::tokens(*command);
}

TEST_CASE(
    "SGLang mini_lb arguments by release: comma lists, ports from 0.4.6, space lists from 0.4.6.post3 "
    "[sglang-mini-lb]") {
  RolePlan prefill;
  prefill.role = RoleKind::prefill;
  RolePlan decode;
  decode.role = RoleKind::decode;
  const std::vector<std::string> head = {"python3", "-m", "sglang.srt.disaggregation.mini_lb"};
  const std::vector<std::string> tail = {"--host", "0.0.0.0", "--port", "8000"};
  const auto expect = [&](std::vector<std::string> middle) {
    std::vector<std::string> all = head;
    all.insert(all.end(), middle.begin(), middle.end());
    all.insert(all.end(), tail.begin(), tail.end());
    return all;
  };
  // mini_lb.py@0.4.5.post3:269-281: comma-separated --prefill and --decode, no bootstrap ports; one prefill per node.
  const auto apart = two_by_two(prefill, decode, {"node0", "node1"}, 0);
  CHECK(mini_lb_tokens(apart, "0.4.5.post3") == expect({"--prefill", "http://node0:30000,http://node1:30000",
                                                        "--decode", "http://node2:30000,http://node3:30000"}));
  // mini_lb.py@0.4.6:282-301 and @0.4.6.post2: comma-separated ports 8998 and 8998 + 1 beside them.
  const auto shared = two_by_two(prefill, decode, {"node0", "node0"}, 1);
  const auto comma = expect({"--prefill", "http://node0:30000,http://node0:30001", "--prefill-bootstrap-ports",
                             "8998,8999", "--decode", "http://node2:30000,http://node3:30000"});
  CHECK(mini_lb_tokens(shared, "0.4.6") == comma);
  CHECK(mini_lb_tokens(shared, "0.4.6.post2") == comma);
  // mini_lb.py@0.4.6.post3:335-345 and launch_lb.py@0.4.7.post1:43-61: nargs="+" for all three.
  const auto spaced = expect({"--prefill", "http://node0:30000", "http://node0:30001", "--prefill-bootstrap-ports",
                              "8998", "8999", "--decode", "http://node2:30000", "http://node3:30000"});
  CHECK(mini_lb_tokens(shared, "0.4.6.post3") == spaced);
  CHECK(mini_lb_tokens(shared, "0.4.7.post1") == spaced);
  // The table holds the same boundaries: 0.4.5.post3's parser has no --prefill-bootstrap-ports.
  const auto with_ports = router_launch(Engine::sglang, shared, parse_engine_version("0.4.6", "test"));
  const auto problems = check_command(Engine::sglang, parse_engine_version("0.4.5.post3", "test"), *with_ports, {});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].subject == "--prefill-bootstrap-ports");
}

TEST_CASE("SGLang before 0.4.6: prefill instances do not share a node [sglang-mini-lb]") {
  // Two 4-GPU prefill instances on one 8-GPU node: bootstrap ports 8998 and 8999, but a 0.4.5 decode server
  // reaches every prefill host at its own --disaggregation-bootstrap-port (decode.py@0.4.5.post3:140).
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  nlohmann::json& role = document["plans"][0]["roles"][0];
  role["nodes"] = 1;
  role["gpus"] = 4;
  role["instances"] = 2;
  role["dispatch"] = "standard";
  role["two_batch_overlap"] = false;
  role["layout"] = {{"tp", 4},         {"dp", 1}, {"otp", 1},       {"qkvtp", 1},        {"dense_tp", 4},
                    {"lm_head_tp", 4}, {"ep", 1}, {"redundant", 0}, {"fused_shared", 0}, {"nodes", 1}};
  const auto check_at = [](const std::string& version) {
    return [version](const PlanFile& plan, const RolePlan& checked) {
      check_sglang_role(plan, checked, parse_engine_version(version, "test"));
    };
  };
  CHECK(export_test::refused_role_key(document, 0, 0, check_at("0.4.5.post3")) == "instances");
  CHECK(export_test::refused_role_key(document, 0, 0, check_at("0.4.6")).empty());
}

// The subjects of the table's problems with `command` at `version`.
std::vector<std::string> problem_subjects(const LaunchCommand& command, const std::string& version) {
  std::vector<std::string> subjects;
  for (const TableProblem& problem : check_command(Engine::sglang, parse_engine_version(version, "test"), command, {}))
    subjects.push_back(problem.subject);
  return subjects;
}

TEST_CASE("SGLang --moe-dense-tp-size: 1 only in the releases read, the TP size as well on main") {
  // server_args.py@0.5.2:2269 asserts moe_dense_tp_size in {1, None}; 2f730e299:6973 (main, after PR 23996)
  // asserts it in (None, 1, tp_size).
  const auto dense = [](const std::string& size) {
    LaunchCommand command;
    command.program = {"python3", "-m", "sglang.launch_server"};
    command.add("--tp-size", "8");
    command.add("--moe-dense-tp-size", size);
    return command;
  };
  CHECK(problem_subjects(dense("1"), "0.5.2").empty());
  CHECK(problem_subjects(dense("8"), "0.5.2") == std::vector<std::string>{"dense-tp-only-one"});
  CHECK(problem_subjects(dense("8"), "0.5.6.post2") == std::vector<std::string>{"dense-tp-only-one"});
  CHECK(problem_subjects(dense("8"), "main").empty());
  CHECK(problem_subjects(dense("4"), "main") == std::vector<std::string>{"dense-tp-one-or-tp"});
}

TEST_CASE("SGLang on an NPU runs the shared expert unfused from 0.4.6.post4 on") {
  // deepseek_v2.py@0.4.6.post4:1490 and @0.4.9.post1:2064 turn fusion off when not _is_cuda; 0.4.6.post3 has
  // no such check.
  LaunchCommand command;
  command.program = {"python3", "-m", "sglang.launch_server"};
  PlanFacts facts;
  facts.fused_shared = 1;
  facts.on_ascend = true;
  const auto subjects_at = [&](const std::string& version) {
    std::vector<std::string> subjects;
    for (const TableProblem& problem :
         check_command(Engine::sglang, parse_engine_version(version, "test"), command, facts))
      subjects.push_back(problem.subject);
    return subjects;
  };
  CHECK(subjects_at("0.4.6.post3").empty());
  CHECK(subjects_at("0.4.6.post4") == std::vector<std::string>{"fusion-needs-nvidia"});
  CHECK(subjects_at("0.4.9.post1") == std::vector<std::string>{"fusion-needs-nvidia"});
}

TEST_CASE("vLLM --enable-eplb without expert parallelism: unchecked at 0.9.2, refused from 0.10.1") {
  // config.py@v0.9.2:1990-2003 checks only the platform and the redundant count; 3779eb8c8 (2025-07-21) adds
  // "enable_expert_parallel must be True to use EPLB" (config/parallel.py:453 on main 28be48fa944d).
  const auto subjects_at = [](const std::string& version, bool expert_parallel) {
    LaunchCommand command;
    command.program = {"vllm", "serve", "org/model"};
    command.add("--enable-eplb");
    if (expert_parallel) command.add("--enable-expert-parallel");
    std::vector<std::string> subjects;
    for (const TableProblem& problem : check_command(Engine::vllm, parse_engine_version(version, "test"), command, {}))
      subjects.push_back(problem.subject);
    return subjects;
  };
  CHECK(subjects_at("0.9.2", false) == std::vector<std::string>{"eplb-without-expert-parallel-unchecked"});
  CHECK(subjects_at("0.10.0", false) == std::vector<std::string>{"eplb-without-expert-parallel-unchecked"});
  CHECK(subjects_at("0.10.1", false) == std::vector<std::string>{"eplb-needs-expert-parallel"});
  CHECK(subjects_at("0.10.1", true).empty());
  CHECK(subjects_at("0.9.2", true).empty());
}

TEST_CASE("SGLang images by release: cu124 before 0.4.8, cu126 to 0.5.2, a bare tag from 0.5.3 [sglang-images]") {
  const nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  CHECK(contains(script(export_at(document, Engine::sglang, "0.4.7.post1"), "lws.yaml"),
                 "image: \"lmsysorg/sglang:v0.4.7.post1-cu124\"\n"));
  CHECK(contains(script(export_at(document, Engine::sglang, "0.4.8"), "lws.yaml"),
                 "image: \"lmsysorg/sglang:v0.4.8-cu126\"\n"));
  // The table's 0.5.0 is the v0.5.0rc2 commit: there is no v0.5.0 tag.
  CHECK(contains(script(export_at(document, Engine::sglang, "0.5.0rc2"), "lws.yaml"),
                 "image: \"lmsysorg/sglang:v0.5.0rc2-cu126\"\n"));
  CHECK(contains(script(export_at(document, Engine::sglang, "0.5.2"), "lws.yaml"),
                 "image: \"lmsysorg/sglang:v0.5.2-cu126\"\n"));
  CHECK(contains(script(export_at(document, Engine::sglang, "0.5.3"), "lws.yaml"),
                 "image: \"lmsysorg/sglang:v0.5.3\"\n"));
}

TEST_CASE(
    "SGLang --enable-ep-moe and --enable-deepep-moe: accepted to 0.5.2, an error from 0.5.3 "
    "[sglang-release-history]") {
  // server_args.py@0.5.2 (b0d25e72c401):2192-2201 keeps both as action="store_true"; from 0.5.3 (a4a3d8239365)
  // they are action=DeprecatedAction (lines 2832-2841), whose __call__ raises ValueError (lines 3287-3294).
  const auto subjects_at = [](const std::string& version, const std::string& flag) {
    LaunchCommand command;
    command.program = {"python3", "-m", "sglang.launch_server"};
    command.add("--model-path", "org/model");
    command.add(flag);
    std::vector<std::string> subjects;
    for (const TableProblem& problem :
         check_command(Engine::sglang, parse_engine_version(version, "test"), command, {}))
      subjects.push_back(problem.subject);
    return subjects;
  };
  for (const std::string flag : {"--enable-ep-moe", "--enable-deepep-moe"}) {
    CHECK(subjects_at("0.4.5.post3", flag).empty());
    CHECK(subjects_at("0.5.2", flag).empty());
    CHECK(subjects_at("0.5.3", flag) == std::vector<std::string>{flag});
    CHECK(subjects_at("0.5.4", flag) == std::vector<std::string>{flag});
    CHECK(table_accepts(Engine::sglang, parse_engine_version("0.5.2", "test"), flag));
    CHECK_FALSE(table_accepts(Engine::sglang, parse_engine_version("0.5.3", "test"), flag));
  }
}
