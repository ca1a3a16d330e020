// Expert-parallel slicing against the per-GPU expert counts DeepSeek publishes [doc-001].
#include <doctest/doctest.h>

#include <stdexcept>

#include "moe_reference/expert_parallel.hpp"

using namespace moeplan::moe_reference;

TEST_CASE("[doc-001]: prefill EP32 with 32 redundant experts holds 9 routed + 1 shared per GPU") {
  const ExpertParallelConfig prefill{.routed_experts = 256, .redundant_experts = 32, .fused_shared = 1, .ep_size = 32};
  CHECK(local_expert_count(prefill) == 10);
}

TEST_CASE("[doc-001]: decode EP144 with 32 redundant experts holds 2 routed + 1 shared per GPU") {
  const ExpertParallelConfig decode{.routed_experts = 256, .redundant_experts = 32, .fused_shared = 1, .ep_size = 144};
  CHECK(local_expert_count(decode) == 3);
}

TEST_CASE("a rank maps its contiguous routed range and every shared replica to local slots") {
  const ExpertParallelConfig config{.routed_experts = 8, .fused_shared = 2, .ep_size = 2, .ep_rank = 1};
  CHECK(first_shared_id(config) == 8);
  CHECK(global_expert_count(config) == 10);
  CHECK(global_to_local_map(config) == std::vector<std::int32_t>{-1, -1, -1, -1, 0, 1, 2, 3, 4, 5});
}

TEST_CASE("slots that do not divide over the ranks are rejected, as the assertion of [doc-002] does") {
  const ExpertParallelConfig uneven{.routed_experts = 10, .ep_size = 4};
  CHECK_THROWS_AS(local_expert_count(uneven), std::invalid_argument);
}
