#pragma once
// The serving engine: one enum, one name table (engine_name / parse_engine), and the release, parsed
// once where a scenario, a plan or the command line names it. Flag names, rules and costs drift between
// releases ([sglang-server-args-docs] for SGLang, [vllm-engine-args-docs] for vLLM), so every writer takes a
// version.
#include <string>
#include <vector>

#include "spec/engine_release.hpp"

namespace moeplan {

enum class Engine { sglang, vllm, vllm_ascend, trtllm };

std::string engine_name(Engine engine);
// The names of kEngines, in order.
std::vector<std::string> engine_names();
inline constexpr Engine kEngines[] = {Engine::sglang, Engine::vllm, Engine::vllm_ascend, Engine::trtllm};

// "sglang", "vllm", "vllm-ascend" or "trtllm"; throws InputError naming `source` and `key` otherwise.
Engine parse_engine(const std::string& name, const std::string& source, const std::string& key = "--engine");

}  // namespace moeplan
