// The plan JSON reader: every field export uses is read and checked, errors name file and key.
#include "export_fixtures.hpp"
#include "relative_approx.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::plan_document;
using export_test::plan_from;
using export_test::refusal_of;

namespace {

std::string rejected_key(const nlohmann::json& document) {
  return refusal_of([&] { plan_from(document); }).key;
}

}  // namespace

TEST_CASE("the plan of [doc-003] reads into a prefill and a decode role") {
  const PlanFile plan = read_plan_file(export_test::data_path("plans/deepseek-v3-pd-h100.json"));
  CHECK(plan.model.name == "DeepSeek-V3");
  CHECK(plan.model.moe_layers() == 58);
  CHECK(plan.scenario.gpus_per_node == 8);
  CHECK_FALSE(plan.calibrated);
  CHECK_FALSE(plan.calibration.has_value());
  REQUIRE(plan.plans.size() == 1);
  const DeploymentPlan& deployment = plan.plans[0];
  CHECK(deployment.disaggregated);
  REQUIRE(deployment.roles.size() == 2);
  const RolePlan& decode = deployment.roles[1];
  CHECK(decode.key == "plans[0].roles[1]");
  CHECK(decode.role == RoleKind::decode);
  CHECK(decode.layout.dp == 72);
  CHECK(decode.layout.ep == 72);
  CHECK(decode.layout.redundant == 32);
  CHECK(decode.dispatch == Dispatch::deepep_low_latency);
  CHECK(decode.memory_fraction_static == approx(0.835));
  CHECK(decode.memory.at("kv_bytes_per_token") == 70272);
  CHECK(nodes_needed(decode, 8) == 9);
}

TEST_CASE("a calibrated plan names its calibration file") {
  const PlanFile plan = export_test::plan_named("deepseek-v3-tp8-h200.json");
  CHECK(plan.calibrated);
  CHECK(plan.calibration == "calibration-h200.json");
  CHECK(plan.plans.size() == 2);
}

TEST_CASE("bad values are refused with their key") {
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  SUBCASE("schema version") {
    document["schema_version"] = 2;
    CHECK(rejected_key(document) == "schema_version");
  }
  SUBCASE("dense layers at least the layers") {
    document["model"]["dense_layers"] = 61;
    CHECK(rejected_key(document) == "model.dense_layers");
  }
  SUBCASE("unknown mode") {
    document["plans"][0]["mode"] = "split";
    CHECK(rejected_key(document) == "plans[0].mode");
  }
  SUBCASE("unknown role") {
    document["plans"][0]["roles"][1]["role"] = "router";
    CHECK(rejected_key(document) == "plans[0].roles[1].role");
  }
  SUBCASE("unknown dispatch") {
    document["plans"][0]["roles"][0]["dispatch"] = "deepep_auto";
    CHECK(rejected_key(document) == "plans[0].roles[0].dispatch");
  }
  SUBCASE("a missing layout key") {
    document["plans"][0]["roles"][0]["layout"].erase("ep");
    const auto refusal = refusal_of([&] { plan_from(document); });
    CHECK(refusal.key == "plans[0].roles[0].layout.ep");
    CHECK(export_test::contains(refusal.message, "the key is missing"));
  }
  SUBCASE("a static fraction above the utilization") {
    document["plans"][0]["roles"][1]["memory_fraction_static"] = 0.95;
    CHECK(rejected_key(document) == "plans[0].roles[1].memory_fraction_static");
  }
  SUBCASE("an unknown KV dtype") {
    document["plans"][0]["roles"][1]["kv_cache_dtype"] = "fp4";
    CHECK(rejected_key(document) == "plans[0].roles[1].kv_cache_dtype");
  }
  SUBCASE("calibrated without a calibration file") {
    document["calibrated"] = true;
    CHECK(rejected_key(document) == "calibration");
  }
}

TEST_CASE("a model name with a line break or a malformed Hugging Face id is refused") {
  // Both reach the scripts: the name a comment line, the id the --model-path argument.
  nlohmann::json document = export_test::plan_document("deepseek-v3-tp8-h200.json");
  document["model"]["name"] = "DeepSeek\ntouch /tmp/x #";
  CHECK(rejected_key(document) == "model.name");
  document = export_test::plan_document("deepseek-v3-tp8-h200.json");
  document["model"]["hf_id"] = "x/$(touch /tmp/x)";
  CHECK(rejected_key(document) == "model.hf_id");
  document["model"]["hf_id"] = "deepseek-ai/DeepSeek-V3";
  CHECK_NOTHROW(plan_from(document));
}

TEST_CASE("a role's GPUs, nodes and layout must agree") {
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  nlohmann::json& decode = document["plans"][0]["roles"][1];
  SUBCASE("ranks tp x dp differ from the GPUs") {
    decode["gpus"] = 64;
    CHECK(rejected_key(document) == "plans[0].roles[1].gpus");
  }
  SUBCASE("layout nodes differ from the role's") {
    decode["layout"]["nodes"] = 8;
    CHECK(rejected_key(document) == "plans[0].roles[1].layout.nodes");
  }
  SUBCASE("more GPUs per node than the node has") {
    decode["nodes"] = 4;
    decode["layout"]["nodes"] = 4;
    CHECK(rejected_key(document) == "plans[0].roles[1].nodes");
  }
  SUBCASE("a multi-node instance on part of each node") {
    decode["gpus"] = 36;
    decode["layout"]["dp"] = 36;
    decode["layout"]["ep"] = 36;
    decode["layout"]["nodes"] = 9;
    CHECK(rejected_key(document) == "plans[0].roles[1].nodes");
  }
  SUBCASE("ep not dividing the ranks") {
    decode["layout"]["ep"] = 48;
    CHECK(rejected_key(document) == "plans[0].roles[1].layout.ep");
  }
}

TEST_CASE("roles must match the mode and fit the cluster") {
  nlohmann::json document = plan_document("deepseek-v3-pd-h100.json");
  SUBCASE("a disaggregated plan without a decode role") {
    document["plans"][0]["roles"].erase(1);
    CHECK(rejected_key(document) == "plans[0].roles");
  }
  SUBCASE("an aggregated plan with two roles") {
    document["plans"][0]["mode"] = "aggregated";
    CHECK(rejected_key(document) == "plans[0].roles");
  }
  SUBCASE("4 prefill + 9 decode nodes on the 12 nodes of [doc-003]") {
    document["scenario"]["nodes"] = 12;
    const auto refusal = refusal_of([&] { plan_from(document); });
    CHECK(refusal.key == "plans[0].roles");
    CHECK(export_test::contains(refusal.message, "they need 13 nodes"));
  }
}

TEST_CASE("unreadable and malformed files are errors naming the file") {
  CHECK(refusal_of([] { read_plan_file(export_test::data_path("plans/no-such-plan.json")); }).message ==
        export_test::data_path("plans/no-such-plan.json") + ": expected an existing, readable file");
  CHECK(export_test::contains(refusal_of([] { read_plan_file(export_test::data_path("bad/malformed.yaml")); }).message,
                              "expected well-formed JSON"));
}
