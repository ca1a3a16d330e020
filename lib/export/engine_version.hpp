#pragma once
// Which engine and which release of it: flag names and rules drift between releases
// ([sglang-server-args-docs] for SGLang, [vllm-engine-args-docs] for vLLM), so every writer takes a version.
#include <compare>
#include <string>

namespace moeplan::exporting {

enum class Engine { sglang, vllm, vllm_ascend };

std::string engine_name(Engine engine);
// "sglang", "vllm" or "vllm-ascend"; throws InputError naming `source` otherwise.
Engine parse_engine(const std::string& name, const std::string& source);

// A release "0.5.4", "v0.10.2rc1", "0.4.6.post1" (suffixes after the third number are ignored),
// or "main", newer than every release.
struct EngineVersion {
  bool main = false;
  int major = 0;
  int minor = 0;
  int patch = 0;

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted operator<=>
  auto operator<=>(const EngineVersion&) const = default;
  std::string text() const;
};

EngineVersion release(int major, int minor, int patch = 0);
constexpr EngineVersion kMainBranch{true, 0, 0, 0};

// Throws InputError naming `source` ("--engine-version") when the text is not a version.
EngineVersion parse_engine_version(const std::string& text, const std::string& source);

}  // namespace moeplan::exporting
