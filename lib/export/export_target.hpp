#pragma once
// The engine and release an export is for. A plan records the engine its scenario named (the one whose
// profile priced it), so export, like plan-deploy and simulate, uses that one: the command line may
// name it again or leave it out, not name another.
#include <string>

#include "export/plan_file.hpp"
#include "spec/engine.hpp"

namespace moeplan::exporting {

struct ExportTarget {
  Engine engine = Engine::sglang;
  EngineVersion version = kMainBranch;
};

// `engine_flag` and `version_flag` are --engine and --engine-version, empty when not given. The engine
// is the flag's, else the plan's; the release the flag's, else the plan's, else main. vllm-ascend serves
// a plan made for vllm (the same engine on Ascend). Throws InputError naming --engine or
// --engine-version when neither names an engine, or when a flag names another than the plan's.
ExportTarget export_target(const PlanFile& plan, const std::string& engine_flag, const std::string& version_flag);

}  // namespace moeplan::exporting
