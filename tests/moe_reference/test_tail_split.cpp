// The tail wave split along k: hand-worked launches, then the invariant that every k block of every
// tile is streamed by exactly one CTA and no wave takes more CTAs than it holds.
#include <doctest/doctest.h>

#include <map>
#include <vector>

#include "moe_reference/tail_split.hpp"

using namespace moeplan::moe_reference;

namespace {

std::vector<TileWork> works(int tiles, int wave, int k_blocks) {
  std::vector<TileWork> all;
  for (long cta = 0; cta < tail_split_ctas(tiles, wave); ++cta) {
    TileWork work;
    if (tail_split_work(static_cast<int>(cta), tiles, wave, k_blocks, work)) all.push_back(work);
  }
  return all;
}

}  // namespace

TEST_CASE("DeepSeek-V3 gate/up at one token on 132 SMs of 4 CTAs: 576 tiles, 48 of them split in 11") {
  // 9 active slots x 4096 / 64 rows = 576 tiles of 7168 / 128 = 56 k blocks; a wave is 528 CTAs.
  const std::vector<TileWork> all = works(576, 528, 56);
  REQUIRE(all.size() == 528 + 48 * 11);
  CHECK(all[527].tile == 527);
  CHECK(all[527].slot == -1);
  CHECK(all[527].last == 56);
  // The tail: tiles 528 .. 575, pieces 56 * p / 11: 0, 5, 10, ..., 50, 56 (the last piece holds 6).
  CHECK(all[528].tile == 528);
  CHECK(all[528].first == 0);
  CHECK(all[528].last == 5);
  CHECK(all[528].pieces == 11);
  CHECK(all[528 + 10].first == 50);
  CHECK(all[528 + 10].last == 56);
  CHECK(all[528 + 11].tile == 529);
  CHECK(all[528 + 11].slot == 1);
  CHECK(all.back().tile == 575);
  CHECK(all.back().slot == 47);
}

TEST_CASE("fewer tiles than a wave: Mixtral's down at one token, 128 tiles of 112 k blocks") {
  // Two active experts x 4096 / 64 = 128 tiles; 528 / 128 = 4 pieces of 28 k blocks each.
  const std::vector<TileWork> all = works(128, 528, 112);
  REQUIRE(all.size() == 512);
  for (const TileWork& work : all) CHECK(work.last - work.first == 28);
}

TEST_CASE("a whole number of waves splits nothing; no work starts no CTA") {
  for (const TileWork& work : works(1056, 528, 16)) CHECK(work.slot == -1);
  CHECK(works(1056, 528, 16).size() == 1056);
  CHECK(works(0, 528, 16).empty());
}

TEST_CASE("pieces never outnumber k blocks: two tiles of three k blocks on a wave of 528") {
  const std::vector<TileWork> all = works(2, 528, 3);
  REQUIRE(all.size() == 6);
  for (const TileWork& work : all) CHECK(work.last - work.first == 1);
}

TEST_CASE("every k block of every tile once, at most a wave split, slots below the wave") {
  for (int wave : {1, 7, 264, 528}) {
    for (int tiles : {1, 2, 5, 263, 264, 265, 527, 529, 1000, 1583}) {
      for (int k_blocks : {1, 3, 12, 56}) {
        std::map<int, std::vector<int>> streamed;  // tile -> how often each k block was streamed
        int split_ctas = 0;
        for (const TileWork& work : works(tiles, wave, k_blocks)) {
          auto& blocks = streamed[work.tile];
          blocks.resize(static_cast<std::size_t>(k_blocks));
          for (int block = work.first; block < work.last; ++block) ++blocks[static_cast<std::size_t>(block)];
          if (work.slot >= 0) {
            ++split_ctas;
            CHECK(work.slot < wave);
          }
        }
        CHECK(split_ctas <= wave);
        REQUIRE(static_cast<int>(streamed.size()) == tiles);
        for (const auto& [tile, blocks] : streamed) {
          for (int count : blocks) CHECK(count == 1);
        }
      }
    }
  }
}
