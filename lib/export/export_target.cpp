#include "export/export_target.hpp"

#include <fmt/format.h>

#include "io/input_error.hpp"

namespace moeplan::exporting {

namespace {

bool serves_plan_engine(Engine engine, const std::string& planned) {
  const std::string name = engine_name(engine);
  return name == planned || (engine == Engine::vllm_ascend && planned == engine_name(Engine::vllm));
}

Engine chosen_engine(const PlanFile& plan, const std::string& engine_flag) {
  const std::string& planned = plan.scenario.engine;
  if (engine_flag.empty() && planned.empty())
    throw InputError(
        "command line", "--engine",
        fmt::format("one of sglang, vllm, vllm-ascend, trtllm: the scenario of {} names no engine", plan.file));
  const Engine engine = parse_engine(engine_flag.empty() ? planned : engine_flag, "command line");
  if (!planned.empty() && !serves_plan_engine(engine, planned))
    throw InputError("command line", "--engine",
                     fmt::format("{}, the engine {} was planned for (its scenario's engine: block), got {}; plan "
                                 "again with the scenario naming {} to export for it",
                                 planned, plan.file, engine_flag, engine_flag));
  return engine;
}

EngineVersion chosen_version(const PlanFile& plan, const std::string& version_flag) {
  const std::string& planned = plan.scenario.engine_version;
  if (!version_flag.empty() && !planned.empty() &&
      parse_engine_version(version_flag, "command line") != parse_engine_version(planned, plan.file))
    throw InputError("command line", "--engine-version",
                     fmt::format("{}, the release {} was planned for (its scenario's engine: block), got {}", planned,
                                 plan.file, version_flag));
  if (!version_flag.empty()) return parse_engine_version(version_flag, "command line");
  return planned.empty() ? kMainBranch : parse_engine_version(planned, plan.file);
}

}  // namespace

ExportTarget export_target(const PlanFile& plan, const std::string& engine_flag, const std::string& version_flag) {
  return {chosen_engine(plan, engine_flag), chosen_version(plan, version_flag)};
}

}  // namespace moeplan::exporting
