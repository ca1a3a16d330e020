#include "export/engine_version.hpp"

#include <fmt/format.h>

#include "io/input_error.hpp"

namespace moeplan::exporting {

std::string engine_name(Engine engine) {
  switch (engine) {
    case Engine::sglang: return "sglang";
    case Engine::vllm: return "vllm";
    case Engine::vllm_ascend: return "vllm-ascend";
    case Engine::trtllm: return "trtllm";
  }
  return "";
}

Engine parse_engine(const std::string& name, const std::string& source) {
  for (const Engine engine : {Engine::sglang, Engine::vllm, Engine::vllm_ascend, Engine::trtllm}) {
    if (engine_name(engine) == name) return engine;
  }
  throw InputError(source, "--engine", fmt::format("one of sglang, vllm, vllm-ascend, trtllm, got '{}'", name));
}

}  // namespace moeplan::exporting
