#include "spec/engine.hpp"

#include <fmt/format.h>

#include "io/input_error.hpp"

namespace moeplan {

std::string engine_name(Engine engine) {
  switch (engine) {
    case Engine::sglang: return "sglang";
    case Engine::vllm: return "vllm";
    case Engine::vllm_ascend: return "vllm-ascend";
    case Engine::trtllm: return "trtllm";
  }
  return "";
}

std::vector<std::string> engine_names() {
  std::vector<std::string> names;
  for (const Engine engine : kEngines) names.push_back(engine_name(engine));
  return names;
}

Engine parse_engine(const std::string& name, const std::string& source, const std::string& key) {
  for (const Engine engine : kEngines) {
    if (engine_name(engine) == name) return engine;
  }
  throw InputError(source, key, fmt::format("one of sglang, vllm, vllm-ascend, trtllm, got '{}'", name));
}

}  // namespace moeplan
