// Every plan the repository's scenarios produce, exported for every engine that serves the scenario's
// hardware at every release its flag table lists, and every script read back against the combination
// rules of issue 46 (spec/engine_rules.hpp, docs/references.md). The plan made for the scenario's own engine
// and release must export there: the search and the launch agree.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "export/exporter.hpp"
#include "export/flag_table.hpp"
#include "export/plan_reader.hpp"
#include "io/input_error.hpp"
#include "io/reporter.hpp"
#include "plan/plan_json.hpp"
#include "plan/search.hpp"
#include "predict/offered_load.hpp"
#include "spec/engine_rules.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"

using namespace moeplan;
using namespace moeplan::exporting;

namespace {

const std::filesystem::path kSource = MOEPLAN_SOURCE_DIR;

// The model each scenario file plans (plan-deploy takes it on the command line): by the file's name.
std::filesystem::path model_of(const std::filesystem::path& scenario) {
  const std::string name = scenario.filename().string();
  if (name.starts_with("deepseek-v3")) return kSource / "models/deepseek-v3.yaml";
  if (name.starts_with("qwen3-235b")) return kSource / "models/qwen3-235b-a22b.yaml";
  FAIL("no model for scenario " << name);
  return {};
}

std::vector<std::filesystem::path> scenario_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "scenarios")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The plan file plan-deploy would write for the scenario (its five best plans of each mode).
PlanFile planned(const std::filesystem::path& scenario_file) {
  const Scenario scenario = load_scenario_yaml(scenario_file);
  const Model model = served_model(load_model_yaml(model_of(scenario_file)), scenario);
  const StepModel ceilings{model, scenario.cluster.hardware};
  const EngineProfile profile = predict::scenario_profile(std::string(MOEPLAN_SOURCE_DIR) + "/engines", scenario);
  const StepCost steps{ceilings, profile};
  SilentReporter quiet;
  const SearchResult result = search_layouts(model, scenario, steps, quiet);
  return parse_plan(plan_json(model, scenario, result, 5), scenario_file.string());
}

std::vector<Engine> engines_for(const PlanFile& plan) {
  if (plan.scenario.on_ascend()) return {Engine::sglang, Engine::vllm_ascend};
  return {Engine::sglang, Engine::vllm, Engine::trtllm};
}

ExportRequest request_for(std::size_t plan_index, Engine engine, const EngineVersion& version) {
  ExportRequest request;
  request.plan_index = plan_index;
  request.engine = engine;
  request.version = version;
  request.network_interface = "eth0";
  request.name_nearest_release = false;
  return request;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The rules of issue 46, read off a script's text alone.
void check_sglang_script(const std::string& name, const std::string& text, const EngineVersion& version) {
  CAPTURE(name);
  const bool deepep = has(text, "--moe-a2a-backend deepep") || has(text, "--enable-deepep-moe");
  // [sglang-tbo-dispatch]: two-batch overlap only with DeepEP.
  if (has(text, "--enable-two-batch-overlap")) {
    CHECK(deepep);
    // [sglang-fusion-overlap]: no forced shared-expert fusion beside it.
    CHECK_FALSE(has(text, "--enforce-shared-experts-fusion"));
  }
  // [sglang-eplb-standard-fix]: redundant experts with standard dispatch only from 0.5.17.
  if (has(text, "--ep-num-redundant-experts") && version < release(0, 5, 17)) CHECK(deepep);
  // [sglang-mini-lb]: no router PD flags before 0.4.8; no unpinned router package.
  if (name == "router.sh" && version < release(0, 4, 8)) CHECK_FALSE(has(text, "--pd-disaggregation"));
  CHECK_FALSE(has(text, "pip install sglang-router\n"));
}

void check_vllm_ascend_script(const std::string& text, const EngineVersion& version) {
  // [vllm-ascend-mooncake-guide]: the connector's module and the sockets' NIC on every PD server.
  if (!has(text, "kv_producer") && !has(text, "kv_consumer")) return;
  CHECK(has(text, "vllm_ascend.distributed.mooncake_connector") == (version < release_candidate(0, 11, 0, 0)));
  CHECK(has(text, "HCCL_SOCKET_IFNAME=eth0"));
  CHECK(has(text, "GLOO_SOCKET_IFNAME=eth0"));
  CHECK(has(text, "TP_SOCKET_IFNAME=eth0"));
}

// [sglang-images]: the tag the project publishes for the release.
void check_image(const std::string& text, Engine engine, const EngineVersion& version) {
  if (engine != Engine::sglang || version.main) return;
  const std::string tag = "lmsysorg/sglang:v" + version.text();
  const std::string suffix = version < release(0, 4, 8) ? "-cu124" : version < release(0, 5, 3) ? "-cu126" : "";
  CHECK(has(text, "image: \"" + tag + suffix + "\"\n"));
}

void check_result(const ExportResult& result, Engine engine, const EngineVersion& version) {
  for (const OutputFile& file : result.files) {
    if (file.name == "lws.yaml") check_image(file.contents, engine, version);
    if (!file.name.ends_with(".sh")) continue;
    if (engine == Engine::sglang) check_sglang_script(file.name, file.contents, version);
    if (engine == Engine::vllm_ascend) check_vllm_ascend_script(file.contents, version);
  }
}

// The scenario's engine at its release (main when it names none). A scenario naming no engine is searched by
// SGLang's rules (spec/engine_rules.hpp), so on GPUs its plans must export to SGLang; Ascend plans may hold
// what only vllm-ascend expresses (O-projection TP), so they have no target there.
bool targets(const std::filesystem::path& scenario_file, const PlanFile& plan, Engine engine,
             const EngineVersion& version) {
  const Scenario scenario = load_scenario_yaml(scenario_file);
  if (engine != Engine::sglang || !follows_sglang_rules(scenario.engine.engine)) return false;
  if (!scenario.engine.engine && plan.scenario.on_ascend()) return false;
  return version == scenario.engine.release.value_or(kMainBranch);
}

// Whether a refusal names one of spec/engine_rules.hpp's rules.
bool breaks_combination_rule(const std::string& refusal) {
  return has(refusal, "[sglang-tbo-dispatch]") || has(refusal, "[sglang-fusion-overlap]") ||
         has(refusal, "[sglang-eplb-standard-fix]");
}

}  // namespace

TEST_CASE("every scenario's plans export as they were planned, and every script keeps the combination rules") {
  std::int64_t exported = 0;
  for (const std::filesystem::path& scenario_file : scenario_files()) {
    CAPTURE(scenario_file.filename().string());
    const PlanFile plan = planned(scenario_file);
    REQUIRE_FALSE(plan.plans.empty());
    for (std::size_t index = 0; index < plan.plans.size(); ++index) {
      for (const Engine engine : engines_for(plan)) {
        std::vector<EngineVersion> versions = table_versions(engine);
        for (const EngineVersion& version : versions) {
          CAPTURE(index);
          CAPTURE(engine_name(engine));
          CAPTURE(version.text());
          try {
            check_result(export_plan(plan, request_for(index, engine, version)), engine, version);
            ++exported;
          } catch (const InputError& error) {
            // Another engine or release may refuse what the plan holds. The target may refuse a layout the
            // search does not yet judge by engine (O/QKV-projection TP, dense TP, fused replicas), but never
            // a mechanism pair the search chose against the shared rules.
            const std::string refusal = error.what();
            CAPTURE(refusal);
            if (targets(scenario_file, plan, engine, version)) CHECK_FALSE(breaks_combination_rule(refusal));
          }
        }
      }
    }
  }
  CHECK(exported > 0);
}
