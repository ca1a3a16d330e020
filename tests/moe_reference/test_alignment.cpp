// Permutation and block alignment: a hand-worked case, then invariants on random routings.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "moe_reference/alignment.hpp"
#include "moe_reference/riding_rows.hpp"

using namespace moeplan::moe_reference;

namespace {

std::vector<std::int32_t> identity_map(int experts) {
  std::vector<std::int32_t> map(static_cast<std::size_t>(experts));
  for (int expert = 0; expert < experts; ++expert) map[static_cast<std::size_t>(expert)] = expert;
  return map;
}

}  // namespace

TEST_CASE("three tokens, two slots each, four experts, blocks of four") {
  // Entries 0..5 go to experts 2, 0, 0, 2, 2, 3; expert 1 gets nothing.
  const std::vector<std::int32_t> ids = {2, 0, 0, 2, 2, 3};
  const Alignment alignment = align_by_expert(ids, identity_map(4), 4, 4);
  CHECK(alignment.expert_counts == std::vector<std::int32_t>{2, 0, 3, 1});
  CHECK(alignment.expert_offsets == std::vector<std::int32_t>{0, 4, 4, 8, 12});
  CHECK(alignment.sorted_entries == std::vector<std::int32_t>{1, 2, -1, -1, 0, 3, 4, -1, 5, -1, -1, -1});
  CHECK(alignment.block_experts == std::vector<std::int32_t>{0, 2, 3});
  CHECK(alignment.entry_positions == std::vector<std::int32_t>{4, 0, 1, 5, 6, 8});
}

TEST_CASE("entries routed to other ranks are left out") {
  const std::vector<std::int32_t> ids = {0, 3, 1, 2};
  const std::vector<std::int32_t> rank_one = {-1, -1, 0, 1};  // this rank holds experts 2 and 3
  const Alignment alignment = align_by_expert(ids, rank_one, 2, 2);
  CHECK(alignment.expert_counts == std::vector<std::int32_t>{1, 1});
  CHECK(alignment.sorted_entries == std::vector<std::int32_t>{3, -1, 1, -1});
  CHECK(alignment.entry_positions == std::vector<std::int32_t>{-1, 2, -1, 0});
}

TEST_CASE("random routings: every local entry once, segments block-aligned, block count bounded") {
  std::mt19937 generator(7);
  for (int trial = 0; trial < 50; ++trial) {
    const int experts = 1 + static_cast<int>(generator() % 40);
    const int entries = static_cast<int>(generator() % 300);
    const int block = 1 << (generator() % 7);
    std::vector<std::int32_t> ids(static_cast<std::size_t>(entries));
    for (auto& id : ids) id = static_cast<std::int32_t>(generator() % static_cast<unsigned>(experts));
    const Alignment alignment = align_by_expert(ids, identity_map(experts), experts, block);
    CHECK(static_cast<int>(alignment.block_experts.size()) <= max_aligned_blocks(entries, experts, block));
    CHECK(alignment.padded_rows() % block == 0);
    for (int expert = 0; expert < experts; ++expert) {
      const int begin = alignment.expert_offsets[static_cast<std::size_t>(expert)];
      const int end = alignment.expert_offsets[static_cast<std::size_t>(expert) + 1];
      CHECK(begin % block == 0);
      CHECK(end - begin >= alignment.expert_counts[static_cast<std::size_t>(expert)]);
      CHECK(end - begin < alignment.expert_counts[static_cast<std::size_t>(expert)] + block);
    }
    for (int entry = 0; entry < entries; ++entry) {
      const int row = alignment.entry_positions[static_cast<std::size_t>(entry)];
      REQUIRE(row >= 0);
      CHECK(alignment.sorted_entries[static_cast<std::size_t>(row)] == entry);
      CHECK(alignment.block_experts[static_cast<std::size_t>(row / block)] == ids[static_cast<std::size_t>(entry)]);
    }
    const auto real = std::count_if(alignment.sorted_entries.begin(), alignment.sorted_entries.end(),
                                    [](std::int32_t entry) { return entry != kPaddingEntry; });
    CHECK(real == entries);
  }
}

TEST_CASE("an expert's last block of at most riding_rows rows rides with the block before it") {
  // Blocks of 64, up to 8 riding rows: 65 and 72 rows ride one row and eight, 73 rows leave nine behind.
  CHECK_FALSE(last_block_rides(64, 64, 8));
  CHECK(last_block_rides(65, 64, 8));
  CHECK(last_block_rides(72, 64, 8));
  CHECK_FALSE(last_block_rides(73, 64, 8));
  CHECK(last_block_rides(130, 64, 8));      // three blocks, the last holding 2
  CHECK_FALSE(last_block_rides(5, 64, 8));  // a lone block has none before it
  CHECK_FALSE(last_block_rides(65, 64, 0));
  CHECK(running_blocks_of(0, 64, 8) == 0);
  CHECK(running_blocks_of(65, 64, 8) == 1);
  CHECK(running_blocks_of(73, 64, 8) == 2);
  CHECK(running_blocks_of(130, 64, 8) == 2);
  CHECK(running_blocks_of(65, 64, 0) == 2);
  CHECK(rows_of_block(65, 0, 64, 8) == 65);
  CHECK(rows_of_block(72, 0, 64, 8) == 72);
  CHECK(rows_of_block(73, 0, 64, 8) == 64);
  CHECK(rows_of_block(73, 1, 64, 8) == 9);
  CHECK(rows_of_block(130, 0, 64, 8) == 64);
  CHECK(rows_of_block(130, 1, 64, 8) == 66);
  CHECK(rows_of_block(65, 1, 64, 0) == 1);
  CHECK(rows_of_block(5, 0, 64, 8) == 5);
}

TEST_CASE("the running blocks skip each riding last block") {
  // Experts of 65, 3, 130, 0 and 73 rows take blocks {0, 1}, {2}, {3, 4, 5}, none, {6, 7}.
  std::vector<std::int32_t> ids;
  const std::vector<int> counts = {65, 3, 130, 0, 73};
  for (std::size_t expert = 0; expert < counts.size(); ++expert) {
    ids.insert(ids.end(), static_cast<std::size_t>(counts[expert]), static_cast<std::int32_t>(expert));
  }
  const Alignment alignment = align_by_expert(ids, identity_map(5), 5, 64);
  CHECK(alignment.block_experts == std::vector<std::int32_t>{0, 0, 1, 2, 2, 2, 4, 4});
  // {block, expert, rows}: 65 rows run in block 0, 130 as 64 + 66 in blocks 3 and 4.
  CHECK(running_blocks(alignment, 8) ==
        std::vector<RunningBlock>{{0, 0, 65}, {2, 1, 3}, {3, 2, 64}, {4, 2, 66}, {6, 4, 64}, {7, 4, 9}});
  CHECK(running_blocks(alignment, 0) ==
        std::vector<RunningBlock>{
            {0, 0, 64}, {1, 0, 1}, {2, 1, 3}, {3, 2, 64}, {4, 2, 64}, {5, 2, 2}, {6, 4, 64}, {7, 4, 9}});
}
