// The engine and release an export is for: the plan's, the command line's, and the refusals between them.
#include <doctest/doctest.h>

#include <string>

#include "export/export_target.hpp"
#include "io/input_error.hpp"

namespace {

using moeplan::Engine;
using moeplan::exporting::export_target;

moeplan::exporting::PlanFile plan_for(const std::string& engine, const std::string& version) {
  moeplan::exporting::PlanFile plan;
  plan.file = "plan.json";
  plan.scenario.engine = engine;
  plan.scenario.engine_version = version;
  return plan;
}

}  // namespace

TEST_CASE("a plan's engine and release are the export's unless the command line repeats them") {
  const auto planned = export_target(plan_for("sglang", "0.5.4"), "", "");
  CHECK(planned.engine == Engine::sglang);
  CHECK(planned.version == moeplan::release(0, 5, 4));
  const auto repeated = export_target(plan_for("sglang", "0.5.4"), "sglang", "v0.5.4");
  CHECK(repeated.version == moeplan::release(0, 5, 4));
  // A plan whose scenario names no release: the command line's, else main.
  CHECK(export_target(plan_for("trtllm", ""), "", "1.2.0rc6").version == moeplan::release_candidate(1, 2, 0, 6));
  CHECK(export_target(plan_for("trtllm", ""), "", "").version.main);
  // vllm-ascend is vLLM on Ascend: it serves a plan made for vllm.
  CHECK(export_target(plan_for("vllm", ""), "vllm-ascend", "").engine == Engine::vllm_ascend);
}

TEST_CASE("a plan without an engine takes the command line's; with neither, or with another, export refuses") {
  CHECK(export_target(plan_for("", ""), "vllm", "0.11.0").engine == Engine::vllm);
  CHECK_THROWS_AS(export_target(plan_for("", ""), "", ""), moeplan::InputError);
  CHECK_THROWS_AS(export_target(plan_for("sglang", ""), "vllm", ""), moeplan::InputError);
  CHECK_THROWS_AS(export_target(plan_for("sglang", "0.5.4"), "", "0.5.6"), moeplan::InputError);
}
