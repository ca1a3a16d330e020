// The mechanisms the search tries for a layout leave out what the scenario's engine release cannot run
// (spec/engine_rules.hpp): SGLang's two-batch overlap needs DeepEP [sglang-tbo-dispatch] and runs no fused
// shared expert [sglang-fusion-overlap]; vLLM's needs 0.11 and DeepEP [vllm-release-history]; vllm-ascend and
// TensorRT-LLM are exported without one [vllm-ascend-dbo].
#include <doctest/doctest.h>

#include <algorithm>

#include "plan/search.hpp"

using namespace moeplan;

namespace {

// DP attention over 8 ranks with EP 8: standard (all-to-all) dispatch and DeepEP are both possible.
Layout ep8(std::int64_t fused_shared) {
  Layout layout;
  layout.tp = 1;
  layout.dp = 8;
  layout.ep = 8;
  layout.fused_shared = fused_shared;
  return layout;
}

// The engine as the scenario reader gives it: the parsed name, and the parsed release unless `version` is "".
EngineChoice engine_choice(const std::string& name, const std::string& version) {
  EngineChoice choice;
  choice.engine = parse_engine(name, "test");
  choice.name = name;
  if (version.empty()) return choice;
  choice.release = parse_engine_version(version, "test");
  choice.version = version;
  return choice;
}

bool offers(const std::vector<RoleOptions>& options, DispatchMode mode, bool overlap) {
  return std::any_of(options.begin(), options.end(), [&](const RoleOptions& option) {
    return option.dispatch == mode && option.two_batch_overlap == overlap;
  });
}

}  // namespace

TEST_CASE("for SGLang two-batch overlap is tried with DeepEP only, at every release") {
  const SearchSpace search;  // overlap off and on
  for (const char* version : {"0.5.4", "0.5.6.post2", "0.5.7", ""}) {
    CAPTURE(version);
    const auto options = role_options(ep8(0), Role::decode, search, engine_choice("sglang", version));
    // 2 dispatch modes x 2 overlap settings, less standard dispatch with overlap: 3.
    CHECK(options.size() == 3);
    CHECK_FALSE(offers(options, DispatchMode::all_to_all, true));
    CHECK(offers(options, DispatchMode::all_to_all, false));
    CHECK(offers(options, DispatchMode::deepep_low_latency, true));
  }
  // A scenario naming no engine is searched by SGLang's rules too.
  CHECK_FALSE(offers(role_options(ep8(0), Role::decode, search, EngineChoice{}), DispatchMode::all_to_all, true));
}

TEST_CASE("for vLLM dual-batch overlap is tried from 0.11.0, on DeepEP, low-latency only at 0.11.0") {
  // [vllm-release-history]: --enable-dbo from 0.11.0 asserting deepep_low_latency; either DeepEP from 0.11.1.
  const SearchSpace search;
  const auto before = role_options(ep8(0), Role::decode, search, engine_choice("vllm", "0.10.2"));
  CHECK_FALSE(offers(before, DispatchMode::deepep_low_latency, true));
  CHECK(offers(before, DispatchMode::deepep_low_latency, false));
  CHECK(offers(role_options(ep8(0), Role::decode, search, engine_choice("vllm", "0.11.0")),
               DispatchMode::deepep_low_latency, true));
  CHECK_FALSE(offers(role_options(ep8(0), Role::prefill, search, engine_choice("vllm", "0.11.0")),
                     DispatchMode::deepep_normal, true));
  CHECK(offers(role_options(ep8(0), Role::prefill, search, engine_choice("vllm", "0.11.1")),
               DispatchMode::deepep_normal, true));
  for (const char* version : {"0.11.1", ""}) {
    CAPTURE(version);
    CHECK_FALSE(offers(role_options(ep8(0), Role::decode, search, engine_choice("vllm", version)),
                       DispatchMode::all_to_all, true));
  }
}

TEST_CASE("for vllm-ascend and TensorRT-LLM no two-batch overlap is tried") {
  // [vllm-ascend-dbo]: not exported (DeepSeek prefill batches only up to 0.10.2rc1, none from 0.11.0rc0);
  // TensorRT-LLM has no such setting. Both modes stay, each without overlap: 2.
  const SearchSpace search;
  for (const auto& engine : {std::pair{"vllm-ascend", "0.10.2rc1"}, std::pair{"vllm-ascend", "0.11.0rc0"},
                             std::pair{"trtllm", "1.2.0rc6"}}) {
    CAPTURE(engine.first);
    CAPTURE(engine.second);
    const auto options = role_options(ep8(0), Role::decode, search, engine_choice(engine.first, engine.second));
    CHECK(options.size() == 2);
    CHECK_FALSE(offers(options, DispatchMode::all_to_all, true));
    CHECK_FALSE(offers(options, DispatchMode::deepep_low_latency, true));
  }
}

TEST_CASE("for SGLang a layout with fused shared experts runs without two-batch overlap") {
  const SearchSpace search;
  const auto options = role_options(ep8(1), Role::decode, search, engine_choice("sglang", "main"));
  // Both modes stay, each without overlap: 2.
  CHECK(options.size() == 2);
  CHECK(offers(options, DispatchMode::all_to_all, false));
  CHECK(offers(options, DispatchMode::deepep_low_latency, false));
}

TEST_CASE("a mode whose every overlap setting is ruled out runs without overlap") {
  SearchSpace search;
  search.two_batch_overlap = {true};
  Layout layout;
  layout.tp = 2;
  layout.dp = 2;
  layout.ep = 2;
  const auto options = role_options(layout, Role::decode, search, engine_choice("sglang", "main"));
  // EP 2 < world 4: standard dispatch only; its overlap is ruled out, so it runs without.
  REQUIRE(options.size() == 1);
  CHECK(offers(options, DispatchMode::all_to_all, false));
}
