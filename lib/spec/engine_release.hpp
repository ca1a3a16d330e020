#pragma once
// An engine release: flag names and rules drift between releases ([sglang-server-args-docs] for SGLang,
// [vllm-engine-args-docs] for vLLM), so the search's engine rules (spec/engine_rules.hpp) and every
// export writer take one.
#include <compare>
#include <string>

namespace moeplan {

// A release "0.5.4", "v0.10.2rc1", "0.4.6.post1", "1.2.0rc6.post2" (a post release of a candidate), or
// "main", newer than every release. A release candidate sorts before its release and a post release after
// what it patches: 0.10.2rc1 < 0.10.2 < 0.10.2.post1, and 1.2.0rc6 < 1.2.0rc6.post1 < 1.2.0rc7 < 1.2.0.
struct EngineVersion {
  enum Stage { candidate = 0, final = 1, post = 2 };
  bool main = false;
  int major = 0;
  int minor = 0;
  int patch = 0;
  int stage = final;
  int stage_number = 0;     // N of rcN or .postN
  int candidate_post = -1;  // M of rcN.postM; -1 for none, so rcN sorts before rcN.post0

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted operator<=>
  auto operator<=>(const EngineVersion&) const = default;
  std::string text() const;
};

EngineVersion release(int major, int minor, int patch = 0);
EngineVersion post_release(int major, int minor, int patch, int post);
EngineVersion release_candidate(int major, int minor, int patch, int candidate);
EngineVersion candidate_post_release(int major, int minor, int patch, int candidate, int post);
constexpr EngineVersion kMainBranch{true, 0, 0, 0, EngineVersion::final, 0};

// The same release without its candidate or post suffix: 0.10.2rc1 -> 0.10.2, 1.2.0rc6.post2 -> 1.2.0
// (main stays main).
EngineVersion without_suffix(const EngineVersion& version);

// Throws InputError naming `source` and `key` when the text is not a version.
EngineVersion parse_engine_version(const std::string& text, const std::string& source,
                                   const std::string& key = "--engine-version");

}  // namespace moeplan
