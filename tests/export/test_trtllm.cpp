// TensorRT-LLM launches, written by hand from [trtllm-serve-source] (the trtllm-serve options) and
// [trtllm-llm-args] (the keys of the extra-options file), and the plans trtllm-serve cannot run as planned.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>

#include "export/exporter.hpp"
#include "export/trtllm/trtllm.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::contains;
using export_test::node_of;
using export_test::plan_document;
using export_test::plan_from;
using Tokens = std::vector<std::string>;

namespace {

// plans[1] of the tp8 plan (TP8, no fused shared expert), turned into attention DP8 with EP8, an FP8 KV cache,
// three MTP draft tokens, listed graph sizes, prompts longer than a forward pass and no prefix cache.
nlohmann::json attention_dp_document() {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  nlohmann::json& role = document["plans"][1]["roles"][0];
  role["layout"]["tp"] = 1;
  role["layout"]["dp"] = 8;
  role["layout"]["ep"] = 8;
  role["layout"]["dense_tp"] = 1;
  role["layout"]["lm_head_tp"] = 1;
  role["max_batch_per_dp_rank"] = 32;
  role["kv_cache_dtype"] = "fp8_e4m3";
  role["max_context"] = 16384;
  role["speculative"] = {{"method", "mtp"}, {"draft_tokens", 3}};
  role["graph_batch_sizes"] = {1, 2, 4, 8, 16, 32};
  role["cuda_graph_max_batch"] = 32;
  role["prefix_caching"] = false;
  return document;
}

LaunchCommand launch_of(const nlohmann::json& document, std::size_t plan_index) {
  const PlanFile plan = plan_from(document);
  check_trtllm_role(plan, plan.plans[plan_index].roles[0]);
  return trtllm_launch(node_of(plan, 0, 0, plan_index), "deepseek-ai/DeepSeek-V3");
}

std::string refused_key(const nlohmann::json& document, std::size_t plan_index = 1) {
  return export_test::refused_role_key(
      document, 0, plan_index, [](const PlanFile& plan, const RolePlan& role) { check_trtllm_role(plan, role); });
}

// [doc-003]'s PD plan with each role on one node of 8 GPUs: attention DP8 with EP8, standard dispatch, no
// redundant experts and no two-batch overlap.
nlohmann::json one_node_pd_document() {
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  for (nlohmann::json& role : document["plans"][0]["roles"]) {
    role["nodes"] = 1;
    role["gpus"] = 8;
    for (const auto& [key, value] : std::map<std::string, int>{
             {"tp", 1}, {"dp", 8}, {"ep", 8}, {"redundant", 0}, {"nodes", 1}, {"dense_tp", 1}, {"lm_head_tp", 1}})
      role["layout"][key] = value;
    role["dispatch"] = "standard";
    role["two_batch_overlap"] = false;
    role["max_running_requests"] = 8 * role["max_batch_per_dp_rank"].get<int>();
  }
  return document;
}

const OutputFile& file_named(const ExportResult& result, const std::string& name) {
  for (const OutputFile& file : result.files) {
    if (file.name == name) return file;
  }
  FAIL("no file " << name);
  return result.files.front();
}

ExportRequest request_at(const std::string& version) {
  ExportRequest request;
  request.engine = Engine::trtllm;
  request.version = parse_engine_version(version, "test");
  request.plan_index = 1;
  request.model_path = "deepseek-ai/DeepSeek-V3";
  return request;
}

}  // namespace

TEST_CASE("attention DP on trtllm: tp_size counts every GPU, the options carry DP, MTP, graphs and the KV cache") {
  const LaunchCommand command = launch_of(attention_dp_document(), 1);
  // tp_size is the GPUs of the stage, 1 x 8; the batch and token limits are per rank, so per DP rank.
  const Tokens expected = {"trtllm-serve",
                           "deepseek-ai/DeepSeek-V3",
                           "--backend",
                           "pytorch",
                           "--tp_size",
                           "8",
                           "--pp_size",
                           "1",
                           "--ep_size",
                           "8",
                           "--max_batch_size",
                           "32",
                           "--max_num_tokens",
                           "8192",
                           "--max_seq_len",
                           "16384",
                           "--extra_llm_api_options",
                           command.value_of(kTrtllmOptionsFlag).value()};
  CHECK(export_test::tokens(command) == expected);
  // Keys in name order (the JSON object is sorted); 16384 > 8192 asks for chunked prefill; the listed graph
  // sizes go as they are; fp8 is the KV dtype; block reuse off is the prefix cache off.
  const std::string yaml =
      "cuda_graph_config:\n"
      "  batch_sizes: [1, 2, 4, 8, 16, 32]\n"
      "enable_attention_dp: true\n"
      "enable_chunked_prefill: true\n"
      "kv_cache_config:\n"
      "  dtype: \"fp8\"\n"
      "  enable_block_reuse: false\n"
      "speculative_config:\n"
      "  decoding_type: \"MTP\"\n"
      "  num_nextn_predict_layers: 3\n";
  CHECK(trtllm_options_yaml(nlohmann::json::parse(*command.value_of(kTrtllmOptionsFlag))) == yaml);
}

TEST_CASE("CUDA graphs off are a null cuda_graph_config, not a missing one (the engine's default captures)") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  document["plans"][1]["roles"][0]["cuda_graph_max_batch"] = 0;
  const LaunchCommand command = launch_of(document, 1);
  CHECK(trtllm_options_yaml(nlohmann::json::parse(*command.value_of(kTrtllmOptionsFlag))) ==
        "cuda_graph_config: null\nkv_cache_config:\n  enable_block_reuse: true\n");
}

TEST_CASE("[yaml-spec] the options writer keeps every key and string whole, however hostile") {
  // Each would end its line, open a flow collection, start a comment, anchor, alias or tag, or change type
  // if written plain; NEL, U+2028 and U+2029 are line breaks to a YAML 1.1 reader, DEL and U+0080 are not
  // printable: all must come back as the same string.
  const std::vector<std::string> values = {"a\ntouch MARK #",
                                           "x\": y",
                                           "a: b",
                                           "- x",
                                           "{a: 1}",
                                           "[1]",
                                           "#c",
                                           "&a",
                                           "*a",
                                           "!!str",
                                           "'q'",
                                           "a\\b",
                                           "\t",
                                           "",
                                           " lead",
                                           "yes",
                                           "null",
                                           "1",
                                           "next\xc2\x85line",
                                           "line\xe2\x80\xa8sep",
                                           "para\xe2\x80\xa9sep",
                                           "del\x7f",
                                           "c1\xc2\x80",
                                           "\xc3\xa9t\xc3\xa9"};
  for (const std::string& value : values) {
    CAPTURE(value);
    const nlohmann::json options = {{value, value}, {"nested", {{"key", value}, {"list", {value, 2}}}}};
    const std::string text = trtllm_options_yaml(options);
    // No line of the file but the four the mapping has: no value made a line of its own.
    CHECK(std::count(text.begin(), text.end(), '\n') == 4);
    CHECK_FALSE(contains(text, "\xe2\x80\xa8"));
    CHECK_FALSE(contains(text, "\xc2\x85"));
    const YAML::Node read = YAML::Load(text);
    CHECK(read.size() == 2);
    CHECK(read[value].as<std::string>() == value);
    CHECK(read[value].Tag() == "!");  // a quoted scalar: a string, never yes/null/1 read as another type
    CHECK(read["nested"]["key"].as<std::string>() == value);
    CHECK(read["nested"]["list"][0].as<std::string>() == value);
    CHECK(read["nested"]["list"][1].as<int>() == 2);
  }
  // By hand: U+2028 is written \u2028, NEL \u0085, DEL \u007f; a plain name stays a plain key.
  CHECK(trtllm_options_yaml({{"plain_key",
                              "a\xe2\x80\xa8"
                              "b\xc2\x85"
                              "c\x7f"}}) == "plain_key: \"a\\u2028b\\u0085c\\u007f\"\n");
  CHECK(trtllm_options_yaml({{"a b", 1}}) == "\"a b\": 1\n");
  // Keys a YAML 1.1 reader would take for a boolean, null or number are quoted; TensorRT-LLM's own are not.
  CHECK(trtllm_options_yaml({{"yes", 1}, {"1", 2}, {"Null", 3}}) == "\"1\": 2\n\"Null\": 3\n\"yes\": 1\n");
  CHECK(trtllm_options_yaml({{"enable_attention_dp", true}}) == "enable_attention_dp: true\n");
}

TEST_CASE("what trtllm-serve has no setting for is refused, naming the plan key") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  CHECK(refused_key(document, 0) == "layout.fused_shared");
  CHECK(refused_key(document, 1).empty());
  const auto refused_with = [&](const std::string& pointer, const nlohmann::json& value) {
    nlohmann::json edited = document;
    edited["plans"][1]["roles"][0][nlohmann::json::json_pointer(pointer)] = value;
    return refused_key(edited);
  };
  nlohmann::json mixed = document;  // TP4 inside DP2 on the 8 GPUs: attention TP inside attention DP
  mixed["plans"][1]["roles"][0]["layout"]["tp"] = 4;
  mixed["plans"][1]["roles"][0]["layout"]["dp"] = 2;
  mixed["plans"][1]["roles"][0]["layout"]["dense_tp"] = 4;
  mixed["plans"][1]["roles"][0]["layout"]["lm_head_tp"] = 4;
  CHECK(refused_key(mixed) == "layout.tp");
  CHECK(refused_with("/layout/otp", 2) == "layout.otp");
  CHECK(refused_with("/layout/dense_tp", 4) == "layout.dense_tp");
  CHECK(refused_with("/layout/redundant", 32) == "layout.redundant");
  CHECK(refused_with("/dispatch", "deepep_low_latency") == "dispatch");
  CHECK(refused_with("/two_batch_overlap", true) == "two_batch_overlap");
  CHECK(refused_with("/kv_block_tokens", 64) == "kv_block_tokens");
  CHECK(refused_with("/speculative", {{"method", "eagle3"}, {"draft_tokens", 3}, {"draft_model", "m"}}) ==
        "speculative.method");
  // An instance over two nodes is exported (mpirun); one that would leave GPUs of its nodes to no rank (16
  // GPUs over 2 nodes of 16) never reaches the writer: the plan reader takes such an instance on whole nodes.
  CHECK(refused_key(plan_document("deepseek-v3-dp16-2node-h200.json"), 0).empty());
  nlohmann::json partial = plan_document("deepseek-v3-dp16-2node-h200.json");
  partial["scenario"]["gpus_per_node"] = 16;
  CHECK(export_test::refusal_of([&] { plan_from(partial); }).key == "plans[0].roles[0].nodes");
}

TEST_CASE("an export writes the options beside the script, refuses an unlisted release and writes nothing") {
  const PlanFile plan = plan_from(plan_document("deepseek-v3-tp8-h200.json"));
  const ExportResult result = export_plan(plan, request_at("1.2.0rc6"));
  std::vector<std::string> names;
  for (const OutputFile& file : result.files) names.push_back(file.name);
  CHECK(names == std::vector<std::string>{"deployment.json", "aggregated-0-node0.sh", "aggregated-0-node0.yaml"});
  CHECK(contains(result.files[1].contents, "    --extra_llm_api_options aggregated-0-node0.yaml \\\n"));
  CHECK(contains(result.files[1].contents, "cd \"$(dirname \"$0\")\"\n"));
  // main is not in the table: the refusal names the newest listed release.
  const std::string refusal = export_test::refusal_of([&] { export_plan(plan, request_at("main")); }).message;
  CHECK(contains(refusal, "the nearest release that runs it is --engine-version 1.2.0rc6"));
  ExportRequest ascend = request_at("1.2.0rc6");
  ascend.plan_index = 0;
  const PlanFile npu = plan_from(plan_document("qwen3-235b-pd-otp4-910b.json"));
  CHECK(export_test::refusal_of([&] { export_plan(npu, ascend); }).key == "scenario.gpu");
}

TEST_CASE("an unlisted post release of a candidate is judged by the listed releases around it") {
  const PlanFile plan = plan_from(plan_document("deepseek-v3-tp8-h200.json"));
  // 1.2.0rc6.post2 comes after 1.2.0rc6, the newest listed release, where every span of trtllm.json ends:
  // refused, naming 1.2.0rc6 as the release it was measured against and the nearest that runs the plan.
  const std::string refusal = export_test::refusal_of([&] { export_plan(plan, request_at("1.2.0rc6.post2")); }).message;
  CHECK(contains(refusal, "trtllm 1.2.0rc6.post2 (not listed: newer than the newest listed, 1.2.0rc6)"));
  CHECK(contains(refusal, "the nearest release that runs it is --engine-version 1.2.0rc6"));
  // 1.2.0rc2.post1 sits between the listed 1.2.0rc2 and 1.2.0rc6, inside every span: exported, and the
  // script says which listed releases it was judged between.
  const ExportResult between = export_plan(plan, request_at("1.2.0rc2.post1"));
  CHECK(contains(between.files[1].contents,
                 "# checked against lib/export/flags/trtllm.json for trtllm 1.2.0rc2.post1 (not listed: judged "
                 "between the listed 1.2.0rc2 and 1.2.0rc6)\n"));
  // A listed release names no neighbours.
  CHECK(contains(export_plan(plan, request_at("1.2.0rc2")).files[1].contents,
                 "# checked against lib/export/flags/trtllm.json for trtllm 1.2.0rc2\n"));
}

TEST_CASE("[trtllm-serve-source] tp8 plan on 1.2.0rc6 matches the hand-written script and options file") {
  const PlanFile plan = read_plan_file(export_test::data_path("plans/deepseek-v3-tp8-h200.json"));
  const ExportResult result = export_plan(plan, request_at("1.2.0rc6"));
  const auto text = [](const std::string& name) {
    std::ifstream stream(export_test::data_path("export/deepseek-v3-tp8-trtllm/" + name));
    return std::string(std::istreambuf_iterator<char>(stream), {});
  };
  CHECK(result.files[1].contents == text("aggregated-0-node0.sh"));
  CHECK(result.files[2].contents == text("aggregated-0-node0.yaml"));
}

TEST_CASE("[trtllm-llmapi-launch] DP16 over two nodes on 1.2.0rc6 matches the hand-written scripts and options file") {
  const PlanFile plan = read_plan_file(export_test::data_path("plans/deepseek-v3-dp16-2node-h200.json"));
  ExportRequest request = request_at("1.2.0rc6");
  request.plan_index = 0;
  request.model_path.clear();  // the plan's hf_id, deepseek-ai/DeepSeek-V3
  const ExportResult result = export_plan(plan, request);
  std::vector<std::string> names;
  for (const OutputFile& file : result.files) names.push_back(file.name);
  // One instance over node0 and node1: a script per node, one options file (the first node's, the only one
  // that runs trtllm-serve), and no lws.yaml (the only group spans nodes, which the manifest leaves out).
  CHECK(names == std::vector<std::string>{"deployment.json", "aggregated-0-node0.sh", "aggregated-0-node1.sh",
                                          "aggregated-0-node0.yaml"});
  const auto text = [](const std::string& name) {
    std::ifstream stream(export_test::data_path("export/deepseek-v3-dp16-2node-trtllm/" + name));
    return std::string(std::istreambuf_iterator<char>(stream), {});
  };
  // By hand: -H lists both hosts with 8 slots each and -n is 16 = 2 x 8; tp_size is TP x DP = 1 x 16 and
  // ep_size 16; the batch limit is the plan's per DP rank (64); the options carry attention DP, the FP8
  // KV cache, the prefix cache and the graph size 64 as in the single-node case.
  CHECK(file_named(result, "aggregated-0-node0.sh").contents == text("aggregated-0-node0.sh"));
  CHECK(file_named(result, "aggregated-0-node1.sh").contents == text("aggregated-0-node1.sh"));
  CHECK(file_named(result, "aggregated-0-node0.yaml").contents == text("aggregated-0-node0.yaml"));
}

TEST_CASE("[trtllm-llmapi-launch] mpirun follows --hosts; PD with a two-node prefill leaves it out of lws.yaml") {
  nlohmann::json document = one_node_pd_document();
  nlohmann::json& prefill = document["plans"][0]["roles"][0];
  prefill["nodes"] = 2;
  prefill["gpus"] = 16;
  prefill["layout"]["dp"] = 16;
  prefill["layout"]["ep"] = 16;
  prefill["layout"]["nodes"] = 2;
  ExportRequest request = request_at("1.2.0rc6");
  request.plan_index = 0;
  request.hosts = {"10.0.0.1", "10.0.0.2", "10.0.0.3"};
  const ExportResult result = export_plan(plan_from(document), request);
  // Prefill on the first two hosts, decode on the third.
  CHECK(contains(
      file_named(result, "prefill-0-node0.sh").contents,
      "exec mpirun -H 10.0.0.1:8,10.0.0.2:8 -n 16 trtllm-llmapi-launch trtllm-serve deepseek-ai/DeepSeek-V3 \\\n"));
  CHECK(contains(file_named(result, "prefill-0-node1.sh").contents, "exec sh -c 'command -v trtllm-llmapi-launch'\n"));
  // The router reaches the prefill instance on its first host, where rank 0 runs trtllm-serve.
  CHECK(contains(file_named(result, "router.yaml").contents,
                 "context_servers:\n  num_instances: 1\n  urls: [\"10.0.0.1:8000\"]\n"));
  CHECK(contains(file_named(result, "router.yaml").contents, "urls: [\"10.0.0.3:8000\"]"));
  // The decode instance (one node) is a group; the prefill instance is named and left out.
  const std::string manifest = file_named(result, "lws.yaml").contents;
  CHECK(contains(manifest, "# prefill instance 0: 2 nodes, left out: mpirun in prefill-0-node0.sh starts its ranks"));
  CHECK(contains(manifest, "  name: decode-0\n"));
  CHECK_FALSE(contains(manifest, "name: prefill-0"));
  CHECK_FALSE(contains(manifest, "mpirun -H"));
}

TEST_CASE("[trtllm-disaggregated] PD on one node each: the router file lists both servers, the roles move KV") {
  ExportRequest request = request_at("1.2.0rc6");
  request.plan_index = 0;
  const ExportResult result = export_plan(plan_from(one_node_pd_document()), request);
  // Prefill on node0 and decode on node1, each the first server of its node (port 8000); the router on 9000
  // (beside servers on 8000); keys in name order.
  CHECK(file_named(result, "router.yaml").contents ==
        "context_servers:\n  num_instances: 1\n  urls: [\"node0:8000\"]\n"
        "generation_servers:\n  num_instances: 1\n  urls: [\"node1:8000\"]\n"
        "hostname: \"0.0.0.0\"\nport: 9000\n");
  CHECK(contains(file_named(result, "router.sh").contents, "exec trtllm-serve disaggregated \\\n    -c router.yaml\n"));
  // The prefill role: no graphs (cuda_graph_max_batch 0), the transceiver, no overlap scheduler, attention DP.
  CHECK(file_named(result, "prefill-0-node0.yaml").contents ==
        "cache_transceiver_config:\n  backend: \"DEFAULT\"\ncuda_graph_config: null\ndisable_overlap_scheduler: true\n"
        "enable_attention_dp: true\nkv_cache_config:\n  enable_block_reuse: true\n");
  CHECK_FALSE(contains(file_named(result, "decode-0-node0.yaml").contents, "disable_overlap_scheduler"));
  // Two nodes: the manifest runs the scripts' commands, naming the options files, not their JSON.
  const std::string manifest = file_named(result, "lws.yaml").contents;
  CHECK(contains(manifest, "--extra_llm_api_options decode-0-node0.yaml"));
  CHECK_FALSE(contains(manifest, "cache_transceiver_config"));
  // The table has the transceiver from 1.2.0rc2 only.
  request.version = release(1, 1, 0);
  const std::string refusal =
      export_test::refusal_of([&] { export_plan(plan_from(one_node_pd_document()), request); }).message;
  CHECK(contains(refusal, "cache_transceiver_config"));
  CHECK(contains(refusal, "the nearest release that runs it is --engine-version 1.2.0rc2"));
}
