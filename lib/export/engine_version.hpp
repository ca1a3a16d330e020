#pragma once
// Which engine and which release of it: flag names and rules drift between releases
// ([sglang-server-args-docs] for SGLang, [vllm-engine-args-docs] for vLLM), so every writer takes a version.
#include <string>

#include "spec/engine_release.hpp"

namespace moeplan::exporting {

enum class Engine { sglang, vllm, vllm_ascend, trtllm };

std::string engine_name(Engine engine);
// "sglang", "vllm", "vllm-ascend" or "trtllm"; throws InputError naming `source` otherwise.
Engine parse_engine(const std::string& name, const std::string& source);

using moeplan::candidate_post_release;
using moeplan::EngineVersion;
using moeplan::kMainBranch;
using moeplan::parse_engine_version;
using moeplan::post_release;
using moeplan::release;
using moeplan::release_candidate;
using moeplan::without_suffix;

}  // namespace moeplan::exporting
