#include "export/engine_version.hpp"

#include <fmt/format.h>

#include <charconv>

#include "io/input_error.hpp"

namespace moeplan::exporting {

std::string engine_name(Engine engine) {
  switch (engine) {
    case Engine::sglang: return "sglang";
    case Engine::vllm: return "vllm";
    case Engine::vllm_ascend: return "vllm-ascend";
  }
  return "";
}

Engine parse_engine(const std::string& name, const std::string& source) {
  for (const Engine engine : {Engine::sglang, Engine::vllm, Engine::vllm_ascend}) {
    if (engine_name(engine) == name) return engine;
  }
  throw InputError(source, "--engine", fmt::format("one of sglang, vllm, vllm-ascend, got '{}'", name));
}

std::string EngineVersion::text() const { return main ? "main" : fmt::format("{}.{}.{}", major, minor, patch); }

EngineVersion release(int major, int minor, int patch) { return EngineVersion{false, major, minor, patch}; }

EngineVersion parse_engine_version(const std::string& text, const std::string& source) {
  if (text == "main") return kMainBranch;
  const std::string expectation = fmt::format("a release such as 0.5.4 or v0.11.0, or main, got '{}'", text);
  const char* cursor = text.data() + (text.starts_with('v') ? 1 : 0);
  const char* const end = text.data() + text.size();
  int parts[3] = {0, 0, 0};
  for (int index = 0; index < 3; ++index) {
    const auto [next, error] = std::from_chars(cursor, end, parts[index]);
    const bool last = next == end || *next != '.';
    if (error != std::errc() || parts[index] < 0 || (last && index < 1))
      throw InputError(source, "--engine-version", expectation);
    cursor = next;
    if (last) break;
    ++cursor;
  }
  return release(parts[0], parts[1], parts[2]);
}

}  // namespace moeplan::exporting
