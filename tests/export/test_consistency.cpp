// Files used together must describe the same deployment: a placement solved for another EP size, a
// layout splitting the heads unevenly, and an export past its file budget are refused up front.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "export/exporter.hpp"
#include "export/placement_file.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::plan_document;
using export_test::plan_from;

namespace {

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const moeplan::InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a layout whose tp does not divide the recorded heads is refused") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  nlohmann::json& role = document["plans"][0]["roles"][0];
  // tp = 3 on 3 GPUs is a consistent instance, but DeepSeek-V3's 128 heads do not split three ways.
  role["gpus"] = 3;
  for (const char* key : {"tp", "dense_tp", "lm_head_tp"}) role["layout"][key] = 3;
  CHECK(message_of([&] { plan_from(document); }) ==
        "plan.json: plans[0].roles[0].layout.tp: expected a value dividing the 128 attention heads of DeepSeek-V3, "
        "got 3");
  document["model"].erase("num_heads");  // a plan written before the heads were recorded is not checked
  document["model"].erase("num_kv_heads");
  CHECK(message_of([&] { plan_from(document); }).empty());
}

TEST_CASE("a placement solved for 8 GPUs is refused for a role of 72") {
  const PlanFile plan = plan_from(plan_document("deepseek-v3-pd-h100.json"));
  const RolePlan& decode = plan.plans[0].roles[1];  // dp = ep = 72, 256 + 32 slots
  ExpertPlacement placement{"eight.json", {}, 8};
  CHECK(message_of([&] { check_placement_fits(placement, plan.model, decode); }) ==
        "eight.json: shape.gpus: expected 72 GPUs, the expert-parallel size of the decode role (plans[0].roles[1]), "
        "got a placement solved for 8");
}

TEST_CASE("an export writing more files than the budget is refused before any is rendered") {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  document["scenario"]["nodes"] = 1 << 20;
  document["plans"][0]["roles"][0]["instances"] = 1 << 20;  // one 8-GPU instance a node: 2^20 scripts
  const PlanFile plan = plan_from(document);
  ExportRequest request;
  request.engine = Engine::sglang;
  CHECK(message_of([&] { export_plan(plan, request); }) ==
        "plan.json: plans[0].roles[0].instances: expected at most 4096 files to write (a launch script per node of "
        "each instance) (docs/budgets.md), got 1048577");
}
