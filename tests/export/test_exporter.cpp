// The whole export: deployment JSON, one script per node (compared with hand-written scripts in
// tests/data/export), SGLang expert-location files, and the refusals that write nothing.
#include <fstream>
#include <sstream>

#include "export/exporter.hpp"
#include "export/placement_file.hpp"
#include "export/plan_reader.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::data_path;
using export_test::refusal_of;
using moeplan::read_json_file;

namespace {

const std::string kPlacement = data_path("export/deepseek-v3-placement-288.json");

PlanFile read_plan(const std::string& name) { return read_plan_file(data_path("plans/" + name)); }

std::string read_text(const std::string& file) {
  std::ifstream stream(file);
  std::stringstream text;
  text << stream.rdbuf();
  return text.str();
}

const OutputFile& file_named(const ExportResult& result, const std::string& name) {
  for (const OutputFile& file : result.files) {
    if (file.name == name) return file;
  }
  FAIL("no output file " << name);
  return result.files.front();
}

ExportRequest request_for(Engine engine, const std::string& model_path) {
  ExportRequest request;
  request.engine = engine;
  request.model_path = model_path;
  request.network_interface = "eth0";  // vllm-ascend PD: the sockets' NIC
  return request;
}

}  // namespace

TEST_CASE("[doc-003] on SGLang: 13 scripts, the decode placement, the deployment JSON") {
  const PlanFile plan = read_plan("deepseek-v3-pd-h100.json");
  ExportRequest request = request_for(Engine::sglang, "deepseek-ai/DeepSeek-V3");
  request.placements = {parse_placement_choice("decode=" + kPlacement)};
  const ExportResult result = export_plan(plan, request);
  CHECK(result.nodes.size() == 13);
  // deployment.json, 4 + 9 scripts, router.sh (PD), lws.yaml (over nodes), one expert-location file
  CHECK(result.files.size() == 17);
  CHECK(file_named(result, "router.sh").contents == read_text(data_path("export/deepseek-v3-pd-sglang/router.sh")));
  CHECK(file_named(result, "prefill-0-node0.sh").contents ==
        read_text(data_path("export/deepseek-v3-pd-sglang/prefill-0-node0.sh")));
  CHECK(file_named(result, "decode-0-node3.sh").contents ==
        read_text(data_path("export/deepseek-v3-pd-sglang/decode-0-node3.sh")));
  CHECK(file_named(result, "decode-0-node3.sh").executable);

  const nlohmann::json deployment = nlohmann::json::parse(file_named(result, "deployment.json").contents);
  CHECK(deployment["schema_version"] == 1);
  CHECK(deployment["plan"]["mode"] == "disaggregated");
  CHECK(deployment["nodes"] == 13);
  CHECK(deployment["gpus"] == 104);
  CHECK(deployment["predicted"]["calibrated"] == false);
  CHECK(deployment["predicted"]["calibration"].is_null());
  CHECK(deployment["predicted"]["throughput_per_gpu"] == 2787.5);
  const nlohmann::json& decode = deployment["roles"][1];
  CHECK(decode["role"] == "decode");
  CHECK(decode["physical_experts"] == 288);
  CHECK(decode["placement"] == kPlacement);
  CHECK(deployment["roles"][0]["placement"].is_null());
  CHECK(decode["layout"]["ep"] == 72);
  CHECK(decode["batch"]["max_running_requests"] == 18432);
  CHECK(decode["memory"]["fraction_static"] == 0.835);
  CHECK(decode["memory"]["breakdown"]["kv_bytes_per_token"] == 70272);
  CHECK(decode["nodes"].size() == 9);
  CHECK(decode["nodes"][0]["node"] == 4);
  CHECK(decode["nodes"][0]["host"] == "node4");
  CHECK(decode["nodes"][0]["devices"] == nlohmann::json::parse("[0,1,2,3,4,5,6,7]"));
}

TEST_CASE("SGLang's expert-location file: 61 rows, the 3 dense ones trivial, then the placement's 58") {
  const PlanFile plan = read_plan("deepseek-v3-pd-h100.json");
  ExportRequest request = request_for(Engine::sglang, "deepseek-ai/DeepSeek-V3");
  request.placements = {parse_placement_choice(kPlacement)};
  const ExportResult result = export_plan(plan, request);
  const nlohmann::json location = nlohmann::json::parse(file_named(result, "expert-location-prefill.json").contents);
  CHECK(location.size() == 1);
  const nlohmann::json& rows = location["physical_to_logical_map"];
  REQUIRE(rows.size() == 61);
  const nlohmann::json placement = read_json_file(kPlacement)["phy2log"];
  for (std::size_t layer = 0; layer < 61; ++layer) {
    REQUIRE(rows[layer].size() == 288);
    if (layer < 3) {
      // `trivial` [sglang-expert-location]: slot p holds expert p % 256, so slots 256..287 repeat experts 0..31.
      CHECK(rows[layer][0] == 0);
      CHECK(rows[layer][255] == 255);
      CHECK(rows[layer][256] == 0);
      CHECK(rows[layer][287] == 31);
    } else {
      CHECK(rows[layer] == placement[layer - 3]);
    }
  }
  // The test placement: in MoE layer 1 (model layer 4) slot 0 holds expert 5, redundant slot 257 expert 10.
  CHECK(rows[4][0] == 5);
  CHECK(rows[4][257] == 10);
  CHECK(file_named(result, "prefill-0-node0.sh").contents.find("--init-expert-location expert-location-prefill.json") !=
        std::string::npos);
}

TEST_CASE("[doc-003] on vLLM and [doc-004] on vllm-ascend match the hand-written scripts") {
  const ExportResult vllm =
      export_plan(read_plan("deepseek-v3-pd-h100.json"), request_for(Engine::vllm, "deepseek-ai/DeepSeek-V3"));
  CHECK(file_named(vllm, "decode-0-node1.sh").contents ==
        read_text(data_path("export/deepseek-v3-pd-vllm/decode-0-node1.sh")));
  const ExportResult ascend =
      export_plan(read_plan("qwen3-235b-pd-otp4-910b.json"), request_for(Engine::vllm_ascend, "Qwen/Qwen3-235B-A22B"));
  CHECK(file_named(ascend, "decode-0-node0.sh").contents ==
        read_text(data_path("export/qwen3-235b-pd-vllm-ascend/decode-0-node0.sh")));
}

TEST_CASE("the deployment JSON does not depend on the engine") {
  const PlanFile plan = read_plan("deepseek-v3-pd-h100.json");
  const ExportResult sglang = export_plan(plan, request_for(Engine::sglang, "m"));
  const ExportResult vllm = export_plan(plan, request_for(Engine::vllm, "m"));
  CHECK(file_named(sglang, "deployment.json").contents == file_named(vllm, "deployment.json").contents);
}

TEST_CASE("hosts, a model without a Hugging Face id needs --model-path, and the plan index") {
  const PlanFile plan = read_plan("deepseek-v3-tp8-h200.json");
  ExportRequest request = request_for(Engine::vllm, "");
  request.plan_index = 1;
  request.hosts = {"h200-a"};
  // The plan's model names no hf_id: a bare model name is no path an engine can load.
  const auto missing = refusal_of([&] { export_plan(plan, request); });
  CHECK(missing.key == "--model-path");
  CHECK(missing.message.find("DeepSeek-V3, whose model file names no hf_id") != std::string::npos);
  request.model_path = "/models/DeepSeek-V3";
  const ExportResult result = export_plan(plan, request);
  const std::string script = file_named(result, "aggregated-0-node0.sh").contents;
  CHECK(script.find("exec vllm serve /models/DeepSeek-V3 \\\n") != std::string::npos);
  CHECK(script.find("host h200-a") != std::string::npos);
  CHECK(nlohmann::json::parse(file_named(result, "deployment.json").contents)["predicted"]["calibration"] ==
        "calibration-h200.json");
  request.plan_index = 2;
  CHECK(refusal_of([&] { export_plan(plan, request); }).key == "--plan-index");
  request.plan_index = 0;
  request.hosts = {"a", "b"};
  CHECK(refusal_of([&] { export_plan(read_plan("deepseek-v3-pd-h100.json"), request); }).key == "--hosts");
  // A host name is a name: a line break, a space, `$(...)` or a leading '-' is refused.
  request.plan_index = 1;
  for (const char* hostile : {"node0\ntouch /tmp/x #", "node 0", "$(touch x)", "-oProxy", "n;ls"}) {
    request.hosts = {hostile};
    CHECK(refusal_of([&] { export_plan(plan, request); }).key == "--hosts");
  }
}

TEST_CASE("placements are refused where they cannot apply") {
  const PlanFile plan = read_plan("deepseek-v3-pd-h100.json");
  SUBCASE("vLLM has no static expert map") {
    ExportRequest request = request_for(Engine::vllm, "m");
    request.placements = {parse_placement_choice(kPlacement)};
    CHECK(refusal_of([&] { export_plan(plan, request); }).key == "--placement");
  }
  SUBCASE("a role the plan does not have") {
    ExportRequest request = request_for(Engine::sglang, "m");
    request.placements = {parse_placement_choice("aggregated=" + kPlacement)};
    CHECK(refusal_of([&] { export_plan(plan, request); }).key == "--placement");
  }
  SUBCASE("a role with ep = 1") {
    ExportRequest request = request_for(Engine::sglang, "m");
    request.plan_index = 1;
    request.placements = {parse_placement_choice(kPlacement)};
    CHECK(refusal_of([&] { export_plan(read_plan("deepseek-v3-tp8-h200.json"), request); }).key ==
          "plans[1].roles[0].layout.ep");
  }
}

TEST_CASE("vLLM serves CUDA GPUs and vllm-ascend Ascend NPUs") {
  CHECK(refusal_of([] {
          export_plan(read_plan("qwen3-235b-pd-otp4-910b.json"), request_for(Engine::vllm, "m"));
        }).key == "scenario.gpu");
  CHECK(refusal_of([] {
          export_plan(read_plan("deepseek-v3-pd-h100.json"), request_for(Engine::vllm_ascend, "m"));
        }).key == "scenario.gpu");
}

TEST_CASE("a placement must fit the role") {
  const PlanFile plan = read_plan("deepseek-v3-pd-h100.json");
  const RolePlan& decode = plan.plans[0].roles[1];
  nlohmann::json document = read_json_file(kPlacement);
  SUBCASE("one row per MoE layer") {
    document["phy2log"].erase(0);
    CHECK(refusal_of([&] { check_placement_fits(parse_placement(document, "p.json"), plan.model, decode); }).key ==
          "phy2log");
  }
  SUBCASE("experts + redundant slots per row") {
    document["phy2log"][7].erase(0);
    CHECK(refusal_of([&] { check_placement_fits(parse_placement(document, "p.json"), plan.model, decode); }).key ==
          "phy2log[7]");
  }
  SUBCASE("every expert placed") {
    document["phy2log"][2][0] = 1;  // expert 10 (slot 0 of MoE layer 2) loses its only slot
    const auto refusal =
        refusal_of([&] { check_placement_fits(parse_placement(document, "p.json"), plan.model, decode); });
    CHECK(refusal.key == "phy2log[2]");
    CHECK(export_test::contains(refusal.message, "expert 10 has none"));
  }
  SUBCASE("ids below the expert count") {
    document["phy2log"][0][5] = 256;
    CHECK(refusal_of([&] { check_placement_fits(parse_placement(document, "p.json"), plan.model, decode); }).key ==
          "phy2log[0]");
  }
  SUBCASE("integer ids") {
    document["phy2log"][0][5] = "five";
    CHECK(refusal_of([&] { parse_placement(document, "p.json"); }).key == "phy2log[0]");
  }
}

TEST_CASE("a refused plan is refused before any file is made") {
  const ExportRequest request = request_for(Engine::vllm_ascend, "Qwen/Qwen3-235B-A22B");
  const auto refusal = refusal_of([&] { export_plan(read_plan("qwen3-235b-rl-otp4-910b.json"), request); });
  CHECK(refusal.key == "plans[0].roles[0].layout.otp");
}

TEST_CASE("the model path is the plan's Hugging Face id when it names one") {
  nlohmann::json document = read_json_file(data_path("plans/deepseek-v3-tp8-h200.json"));
  document["model"]["hf_id"] = "deepseek-ai/DeepSeek-V3";
  const PlanFile plan = parse_plan(document, "plan.json");
  const ExportResult result = export_plan(plan, request_for(Engine::sglang, ""));
  const std::string script = file_named(result, "aggregated-0-node0.sh").contents;
  CHECK(script.find("--model-path deepseek-ai/DeepSeek-V3 \\\n") != std::string::npos);
  CHECK(script.find("# note:") == std::string::npos);
  // One aggregated instance on one node: no router, no manifest.
  CHECK(result.files.size() == 2);
}

TEST_CASE("[doc-003] on Kubernetes: one LeaderWorkerSet per instance, a pod per node with its 8 GPUs") {
  const ExportResult result =
      export_plan(read_plan("deepseek-v3-pd-h100.json"), request_for(Engine::sglang, "deepseek-ai/DeepSeek-V3"));
  const std::string manifest = file_named(result, "lws.yaml").contents;
  // Prefill: 1 instance of 4 nodes; decode: 1 instance of 9 nodes; 8 H100s per node.
  CHECK(manifest.find("name: prefill-0\n") != std::string::npos);
  CHECK(manifest.find("name: decode-0\n") != std::string::npos);
  CHECK(manifest.find("    size: 4\n") != std::string::npos);
  CHECK(manifest.find("    size: 9\n") != std::string::npos);
  CHECK(manifest.find("nvidia.com/gpu: 8\n") != std::string::npos);
  CHECK(manifest.find("nvidia.com/gpu: 72") == std::string::npos);
  // The worker template: the node rank and the head's address come from the group.
  CHECK(manifest.find("--node-rank \"${LWS_WORKER_INDEX}\"") != std::string::npos);
  CHECK(manifest.find("--dist-init-addr \"${LWS_LEADER_ADDRESS}:5000\"") != std::string::npos);
  CHECK(manifest.find("node4") == std::string::npos);
}
