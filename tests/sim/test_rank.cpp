// One DP rank's admission, KV accounting and preemption, worked by hand.
#include <doctest/doctest.h>

#include <vector>

#include "sim/rank.hpp"
#include "sim/simulation_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::sim;

namespace {

struct RankFixture {
  Model model = test::qwen3_235b();
  Scenario scenario = test::h200_closed_loop(100, 10, 4, 4);
  StepModel ceilings{model, scenario.cluster.hardware};
  EngineProfile profile = unit_profile("test");
  StepCost steps{ceilings, profile};
  ServingContext context{model, scenario, steps, SkewModel{}};
  StepPricer pricer{context, parse_layout("tp=8", "test"),
                    RoleOptions{Role::aggregated, DispatchMode::gather_scatter, false}, scenario.memory};
  std::vector<SimRequest> requests;
  std::vector<std::int64_t> completing;  // the last schedule's requests whose prefill ended

  // `count` requests of a 100-token prompt and 10 output tokens, queued on `rank`.
  void queue(DpRank& rank, int count) {
    for (int index = 0; index < count; ++index) {
      SimRequest request;
      request.prompt = 100;
      request.output = 10;
      request.prefill_length = 100;
      requests.push_back(request);
      rank.enqueue(static_cast<std::int64_t>(requests.size()) - 1);
    }
  }

  // One scheduling pass with `budget` prefill tokens, admission allowed.
  RankSchedule schedule(DpRank& rank, std::int64_t budget = 8192) {
    completing.clear();
    return rank.schedule(requests, pricer, budget, true, completing);
  }

  // A rank of `capacity` tokens in blocks of `block_tokens` whose `count` queued prompts all fit and
  // start decoding at step 1.
  DpRank decoding_rank(std::int64_t capacity, std::int64_t block_tokens, bool prefix_caching, int count) {
    DpRank rank(capacity, 48, block_tokens, prefix_caching);
    queue(rank, count);
    schedule(rank);
    start_decoding(rank, 0);
    return rank;
  }

  // Decode steps `first` to `last`, each making room and growing; returns the sequences preempted.
  std::int64_t decode_steps(DpRank& rank, std::int64_t first, std::int64_t last) {
    std::int64_t preempted = 0;
    for (std::int64_t step = first; step <= last; ++step) {
      preempted += rank.make_room(requests, step);
      rank.grow(step);
    }
    return preempted;
  }

  // The last schedule's completed prefills start decoding at step 1; `generated` tokens came with them.
  void start_decoding(DpRank& rank, std::int64_t generated) {
    for (const std::int64_t id : completing) {
      requests[static_cast<std::size_t>(id)].generated = generated;
      rank.start_decoding(requests[static_cast<std::size_t>(id)], 1);
    }
  }
};

}  // namespace

TEST_CASE("a cache that holds exactly three prompts admits three and says the KV binds") {
  RankFixture fixture;
  DpRank rank(300, 48, 1, true);
  fixture.queue(rank, 4);
  const RankSchedule schedule = fixture.schedule(rank);
  CHECK(rank.running() == 3);
  CHECK(rank.waiting() == 1);
  CHECK(rank.kv_used() == 300);
  CHECK(schedule.kv_blocked);
  CHECK(schedule.prefill_tokens == 300);
  CHECK(fixture.completing == std::vector<std::int64_t>{0, 1, 2});
}

TEST_CASE("the batch cap admits no more than max batch, without blaming memory") {
  RankFixture fixture;
  DpRank rank(10000, 2, 1, true);
  fixture.queue(rank, 4);
  const RankSchedule schedule = fixture.schedule(rank);
  CHECK(rank.running() == 2);
  CHECK_FALSE(schedule.kv_blocked);
}

TEST_CASE("chunked prefill spends the token budget in admission order") {
  RankFixture fixture;
  DpRank rank(10000, 48, 1, true);
  fixture.queue(rank, 3);
  // 250 tokens: the first two prompts whole, the third's first 50.
  const RankSchedule first = fixture.schedule(rank, 250);
  CHECK(first.prefill_tokens == 250);
  CHECK(fixture.completing.size() == 2);
  CHECK(fixture.requests[2].prefilled == 50);
  const RankSchedule second = fixture.schedule(rank, 250);
  CHECK(second.prefill_tokens == 50);
  CHECK(fixture.completing == std::vector<std::int64_t>{2});
}

TEST_CASE("when decode growth overflows the cache the newest sequence is preempted for recompute") {
  RankFixture fixture;
  DpRank rank(300, 48, 1, true);
  fixture.queue(rank, 3);
  fixture.schedule(rank);
  fixture.start_decoding(rank, 1);  // the prefill's first token
  // Step 1: three sequences need 3 more slots in a full cache of 300; dropping the newest (100 held) leaves 200 + 2.
  CHECK(rank.make_room(fixture.requests, 1) == 1);
  rank.grow(1);
  CHECK(rank.kv_used() == 202);
  CHECK(rank.running() == 2);
  CHECK(rank.waiting() == 1);
  CHECK(rank.decoding() == 2);
  const SimRequest& preempted = fixture.requests[2];
  CHECK(preempted.prefill_length == 101);  // prompt + the one token it had generated
  CHECK(preempted.prefilled == 0);
  CHECK(preempted.epoch == 1);
}

TEST_CASE("a finished sequence frees its prompt and every token it decoded") {
  RankFixture fixture;
  DpRank rank(1000, 48, 1, true);
  fixture.queue(rank, 1);
  fixture.schedule(rank);
  rank.start_decoding(fixture.requests[0], 1);
  CHECK(fixture.decode_steps(rank, 1, 9) == 0);
  CHECK(rank.kv_used() == 109);
  rank.release(0, fixture.requests[0], 9);
  CHECK(rank.kv_used() == 0);
  CHECK(rank.running() == 0);
  CHECK(rank.decoding() == 0);
}

// 64-token blocks: a 100-token prompt holds two (128 tokens), so four blocks hold two prompts; decoding
// from step 1, a sequence is 99 + s tokens long at step s and fills its second block at s = 29.
TEST_CASE("a cache of whole blocks binds at the first step a sequence needs a new block") {
  RankFixture fixture;
  DpRank rank(256, 48, 64, true);
  fixture.queue(rank, 3);
  const RankSchedule schedule = fixture.schedule(rank);
  CHECK(rank.running() == 2);
  CHECK(schedule.kv_blocked);
  CHECK(rank.kv_used() == 256);
  fixture.start_decoding(rank, 0);
  CHECK(fixture.decode_steps(rank, 1, 28) == 0);
  CHECK(rank.kv_used() == 256);
  CHECK(rank.attended_tokens() == 2 * 128);
  // Step 29: both want a third block; dropping the newest frees its two and the other takes one.
  CHECK(rank.make_room(fixture.requests, 29) == 1);
  rank.grow(29);
  CHECK(rank.kv_used() == 3 * 64);
  CHECK(rank.attended_tokens() == 129);
  rank.release(0, fixture.requests[0], 29);
  CHECK(rank.kv_used() == 0);
}

// The same four-block cache, with the prefix cache and without. At step 29 the newest sequence (100-token prompt,
// 28 decoded: 128 tokens, two full blocks) is preempted; its blocks go to the free queue's back, tail
// first, and the other sequence's third block takes that tail at once. Its prefix block is still cached
// when the first sequence finishes, so readmission recomputes 64 of its 128 tokens.
TEST_CASE("a readmitted sequence reads back the prefix its freed blocks still hold") {
  for (const bool prefix_caching : {true, false}) {
    CAPTURE(prefix_caching);
    RankFixture fixture;
    DpRank rank = fixture.decoding_rank(256, 64, prefix_caching, 2);
    CHECK(fixture.decode_steps(rank, 1, 29) == 1);
    CHECK(fixture.requests[1].cached_blocks == (prefix_caching ? 2 : 0));
    CHECK(rank.free_queue().size() == rank.free_blocks());
    rank.release(0, fixture.requests[0], 29);
    const RankSchedule readmitted = fixture.schedule(rank);
    CHECK(fixture.requests[1].prefill_length == 128);
    CHECK(readmitted.cached_tokens == (prefix_caching ? 64 : 0));
    CHECK(readmitted.prefill_tokens == (prefix_caching ? 64 : 128));
    CHECK(rank.kv_used() == 128);
    CHECK(rank.free_queue().size() == rank.free_blocks());
  }
}

// 40 tokens a block: a 100-token prompt holds three. Readmitted right after its preemption, before any
// block is taken, its first two blocks (80 tokens) come back and its last 40 tokens are computed again.
TEST_CASE("a prefix still whole in the cache is read back up to its last full block") {
  RankFixture fixture;
  DpRank rank = fixture.decoding_rank(120, 40, true, 1);
  CHECK(fixture.decode_steps(rank, 1, 20) == 0);
  // Step 21: it holds 120 tokens and needs a fourth block the cache lacks, so it preempts itself.
  CHECK(rank.make_room(fixture.requests, 21) == 1);
  const SimRequest& request = fixture.requests[0];
  CHECK(request.prefill_length == 120);
  CHECK(request.cached_blocks == 3);
  const RankSchedule readmitted = fixture.schedule(rank);
  // vLLM computes the last token again, so of 120 tokens at most 119 may come back: two blocks, 80.
  CHECK(readmitted.cached_tokens == 80);
  CHECK(readmitted.prefill_tokens == 40);
}
