// The combination rules the search and the export share (spec/engine_rules.hpp), on both sides of each
// release boundary they name (docs/references.md: [sglang-tbo-dispatch], [sglang-fusion-overlap],
// [sglang-eplb-standard-fix]).
#include <doctest/doctest.h>

#include "spec/engine_rules.hpp"

using namespace moeplan;

namespace {

MechanismChoice choice(bool deepep, bool overlap, std::int64_t fused, std::int64_t redundant) {
  return MechanismChoice{deepep, overlap, fused, redundant};
}

std::string key_of(const EngineVersion& version, const MechanismChoice& mechanisms) {
  const auto problem = sglang_combination_problem(version, mechanisms);
  return problem ? problem->key : "";
}

}  // namespace

TEST_CASE("two-batch overlap without DeepEP: a crash up to 0.5.6.post2, a refusal from 0.5.7, on main too") {
  // [sglang-tbo-dispatch]: v0.5.6.post2 deepseek_v2.py:1168-1174 calls dispatch_a; v0.5.7 server_args.py:4665.
  const auto crash = sglang_combination_problem(post_release(0, 5, 6, 2), choice(false, true, 0, 0));
  REQUIRE(crash);
  CHECK(crash->key == "two_batch_overlap");
  CHECK(crash->expectation.find("crashes on the first split batch") != std::string::npos);
  const auto refusal = sglang_combination_problem(release(0, 5, 7), choice(false, true, 0, 0));
  REQUIRE(refusal);
  CHECK(refusal->expectation.find("refuses it in check_server_args") != std::string::npos);
  CHECK(key_of(kMainBranch, choice(false, true, 0, 0)) == "two_batch_overlap");
  CHECK(key_of(release(0, 4, 7), choice(false, true, 0, 0)) == "two_batch_overlap");
  // With DeepEP, or without overlap, every release runs it.
  CHECK(key_of(post_release(0, 5, 6, 2), choice(true, true, 0, 0)).empty());
  CHECK(key_of(release(0, 5, 7), choice(true, true, 0, 0)).empty());
  CHECK(key_of(kMainBranch, choice(false, false, 0, 0)).empty());
}

TEST_CASE("fused shared experts beside two-batch overlap: off before the enforce flag, incompatible after") {
  // [sglang-fusion-overlap]: v0.5.18 deepseek_v2.py:3027-3030; earlier releases turn fusion off under TBO.
  CHECK(key_of(post_release(0, 5, 6, 2), choice(true, true, 1, 0)) == "layout.fused_shared");
  CHECK(key_of(kMainBranch, choice(true, true, 1, 0)) == "layout.fused_shared");
  CHECK(key_of(kMainBranch, choice(true, false, 1, 0)).empty());
  CHECK(key_of(kMainBranch, choice(true, true, 0, 0)).empty());
}

TEST_CASE("redundant experts with standard dispatch: wrong output before 0.5.17, fixed from 0.5.17") {
  // [sglang-eplb-standard-fix]: 06ccaef24a, first in v0.5.17.
  CHECK(key_of(post_release(0, 5, 16, 1), choice(false, false, 0, 32)) == "layout.redundant");
  CHECK(key_of(release(0, 5, 16), choice(false, false, 0, 32)) == "layout.redundant");
  CHECK(key_of(release(0, 5, 17), choice(false, false, 0, 32)).empty());
  CHECK(key_of(release(0, 5, 18), choice(false, false, 0, 32)).empty());
  CHECK(key_of(kMainBranch, choice(false, false, 0, 32)).empty());
  CHECK(key_of(release(0, 5, 16), choice(true, false, 0, 32)).empty());
}

TEST_CASE("the search follows SGLang's rules for SGLang and for a scenario naming no engine") {
  CHECK(follows_sglang_rules(Engine::sglang));
  CHECK(follows_sglang_rules(std::nullopt));
  CHECK_FALSE(follows_sglang_rules(Engine::vllm));
  CHECK_FALSE(follows_sglang_rules(Engine::trtllm));
}
