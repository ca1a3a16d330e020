#pragma once
// Each engine's flags, environment variables and config keys by release, as data: lib/export/flags/*.json,
// compiled in. Every entry names the releases that accept it, its value type or choices and where in the
// engine's source that was read; constraints name combinations a release refuses or runs wrongly. The
// exporter picks spellings from the table and checks every command it writes against it.
#include <cstdint>
#include <string>
#include <vector>

#include "export/launch_command.hpp"
#include "export/plan_file.hpp"
#include "spec/engine.hpp"

namespace moeplan::exporting {

// What a constraint may ask of the plan beside the command: the role's fused shared experts, the
// model's routed and shared experts and name, and whether the cluster is Ascend (1) or not (0).
struct PlanFacts {
  std::int64_t fused_shared = 0;
  std::int64_t routed_experts = 0;
  std::int64_t shared_experts = 0;
  bool on_ascend = false;
  std::string model;
};

PlanFacts plan_facts(const PlanFile& plan, const RolePlan& role);

// One thing a release would refuse or run wrongly: the flag, variable or constraint, and why.
struct TableProblem {
  std::string subject;
  std::string reason;
};

// The releases the table lists for `engine`, oldest first, main last.
std::vector<EngineVersion> table_versions(Engine engine);

// Whether `version` accepts `name` (a flag, an environment variable, or "FLAG:dotted.key" for a key of
// a JSON-valued flag), and `value` among its choices.
bool table_accepts(Engine engine, const EngineVersion& version, const std::string& name);
bool table_accepts_choice(Engine engine, const EngineVersion& version, const std::string& name,
                          const std::string& value);

// Every problem of `command` for `version`: names the release lacks, values of the wrong type or
// outside the choices, and the constraints the command meets. Empty when the release runs it as meant.
std::vector<TableProblem> check_command(Engine engine, const EngineVersion& version, const LaunchCommand& command,
                                        const PlanFacts& facts);

// "lib/export/flags/sglang.json": where the table of `engine` lives in the repository.
std::string table_file(Engine engine);

}  // namespace moeplan::exporting
