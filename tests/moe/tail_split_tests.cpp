// The tail wave split along k: hand-worked launches, then the invariant that every k block of every
// tile is streamed by exactly one CTA, that each tile's pieces know how many they are, and that the
// split wave keeps at least three quarters of the wave busy or deals out shares within one k block.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "moe/tail_split.hpp"

using namespace moeplan::moe;

namespace {

struct CtaWork {
  TileWork pieces[2];
  int count = 0;
};

std::vector<CtaWork> ctas_with_work(int tiles, int wave, int k_blocks) {
  const TailSplit split(tiles, wave, k_blocks);
  std::vector<CtaWork> all;
  for (long cta = 0; cta < tail_split_ctas(tiles, wave); ++cta) {
    CtaWork work;
    work.count = split.piece_count(static_cast<int>(cta));
    for (int piece = 0; piece < work.count; ++piece) work.pieces[piece] = split.piece(static_cast<int>(cta), piece);
    if (work.count > 0) all.push_back(work);
  }
  return all;
}

int blocks_of(const CtaWork& work) {
  int blocks = 0;
  for (int piece = 0; piece < work.count; ++piece) blocks += work.pieces[piece].last - work.pieces[piece].first;
  return blocks;
}

}  // namespace

TEST_CASE("DeepSeek-V3 gate/up at one token on 132 SMs of 4 CTAs: 576 tiles, 48 of them split in 11") {
  // 9 active slots x 4096 / 64 rows = 576 tiles of 7168 / 128 = 56 k blocks; a wave is 528 CTAs, and
  // 528 / 48 = 11 pieces of each tail tile fill it: 56 x p / 11 = 0, 5, 10, ..., 50, 56.
  const std::vector<CtaWork> all = ctas_with_work(576, 528, 56);
  REQUIRE(all.size() == 528 + 48 * 11);
  CHECK(all[527].pieces[0].tile == 527);
  CHECK(all[527].pieces[0].slot == -1);
  CHECK(all[527].pieces[0].last == 56);
  const TileWork first = all[528].pieces[0];
  CHECK(first.tile == 528);
  CHECK(first.first == 0);
  CHECK(first.last == 5);
  CHECK(first.pieces == 11);
  CHECK(all[528 + 10].pieces[0].first == 50);
  CHECK(all[528 + 10].pieces[0].last == 56);
  CHECK(all[528 + 11].pieces[0].tile == 529);
  CHECK(all[528 + 11].pieces[0].slot == 1);
  CHECK(all.back().pieces[0].tile == 575);
  CHECK(all.back().pieces[0].slot == 47);
}

TEST_CASE("fewer tiles than a wave: Mixtral's down at one token, 128 tiles of 112 k blocks") {
  // Two active experts x 4096 / 64 = 128 tiles; 528 / 128 = 4 pieces of 28 k blocks each keep 512 of
  // the 528 CTAs busy, more than three quarters: even pieces.
  const std::vector<CtaWork> all = ctas_with_work(128, 528, 112);
  REQUIRE(all.size() == 512);
  for (const CtaWork& work : all) CHECK(blocks_of(work) == 28);
}

TEST_CASE("shares dealt out where even pieces idle a quarter of the wave: Qwen3-235B's gate/up at one token") {
  // 8 active slots x 3072 / 128 rows (paired e4m3 warpgroups) = 192 tiles of 4096 / 128 = 32 k blocks on
  // H200's 264 CTAs: unsplit, 72 CTAs (27 %) idle. Dealt out: 6144 blocks over 264 CTAs, 23.27 each. CTA 1
  // takes blocks 1 x 6144 / 264 = 23 .. 2 x 6144 / 264 = 46: the last 9 of tile 0 and the first 14 of
  // tile 1; tile 0's blocks 0 .. 31 fall to CTAs 0 and 1, tile 1's 32 .. 63 to CTAs 1 and 2 (block 63 is
  // CTA (64 x 264 - 1) / 6144 = 2's).
  const std::vector<CtaWork> all = ctas_with_work(192, 264, 32);
  REQUIRE(all.size() == 264);
  for (const CtaWork& work : all) CHECK((blocks_of(work) == 23 || blocks_of(work) == 24));
  REQUIRE(all[1].count == 2);
  CHECK(all[1].pieces[0].tile == 0);
  CHECK(all[1].pieces[0].first == 23);
  CHECK(all[1].pieces[0].last == 32);
  CHECK(all[1].pieces[0].pieces == 2);
  CHECK(all[1].pieces[1].tile == 1);
  CHECK(all[1].pieces[1].first == 0);
  CHECK(all[1].pieces[1].last == 14);
  CHECK(all[1].pieces[1].pieces == 2);
  CHECK(all[1].pieces[1].slot == 1);
}

TEST_CASE("DeepSeek-V3 E_local 8 down at 64 tokens on H200's 264 CTAs: 184 tail tiles no longer run unsplit") {
  // 8 slots x 7168 / 128 rows (paired e4m3 warpgroups) = 448 tiles of 2048 / 128 = 16 k blocks: one whole
  // wave, then 184 tail tiles, which unsplit leave 80 CTAs (30 %) idle: 184 x 16 = 2944 blocks dealt out
  // over 264 CTAs, 11 or 12 each (2944 / 264 = 11.15) where one tile each would take 16.
  const std::vector<CtaWork> all = ctas_with_work(448, 264, 16);
  REQUIRE(all.size() == 264 + 264);
  int most = 0;
  for (std::size_t cta = 264; cta < all.size(); ++cta) most = std::max(most, blocks_of(all[cta]));
  CHECK(most == 12);
}

TEST_CASE("a whole number of waves splits nothing; no work starts no CTA") {
  for (const CtaWork& work : ctas_with_work(1056, 528, 16)) CHECK(work.pieces[0].slot == -1);
  CHECK(ctas_with_work(1056, 528, 16).size() == 1056);
  CHECK(ctas_with_work(0, 528, 16).empty());
}

TEST_CASE("pieces never outnumber k blocks: two tiles of three k blocks on a wave of 528") {
  const std::vector<CtaWork> all = ctas_with_work(2, 528, 3);
  REQUIRE(all.size() == 6);
  for (const CtaWork& work : all) CHECK(blocks_of(work) == 1);
}

TEST_CASE("every k block of every tile once, pieces counted right, the split wave busy, slots below the wave") {
  for (int wave : {1, 7, 264, 528}) {
    for (int tiles : {1, 2, 5, 263, 264, 265, 448, 527, 529, 1000, 1583}) {
      for (int k_blocks : {1, 3, 12, 16, 56}) {
        std::map<int, std::vector<int>> streamed;  // tile -> how often each k block was streamed
        std::map<int, std::vector<int>> pieces;    // split tile -> each piece's count of pieces
        int fewest = k_blocks + 1, most = 0;
        const std::vector<CtaWork> all = ctas_with_work(tiles, wave, k_blocks);
        for (std::size_t cta = 0; cta < all.size(); ++cta) {
          REQUIRE(all[cta].count >= 1);
          REQUIRE(all[cta].count <= 2);
          for (int index = 0; index < all[cta].count; ++index) {
            const TileWork& work = all[cta].pieces[index];
            auto& blocks = streamed[work.tile];
            blocks.resize(static_cast<std::size_t>(k_blocks));
            for (int block = work.first; block < work.last; ++block) ++blocks[static_cast<std::size_t>(block)];
            if (work.slot >= 0) {
              CHECK(work.slot < wave);
              pieces[work.tile].push_back(work.pieces);
            }
          }
          if (static_cast<int>(cta) >= tiles / wave * wave) {
            fewest = std::min(fewest, blocks_of(all[cta]));
            most = std::max(most, blocks_of(all[cta]));
          }
        }
        CHECK(static_cast<int>(all.size()) <= tiles / wave * wave + wave);
        // The split wave's CTAs take shares within a block of each other, on three quarters of the wave
        // or more (or one block each, where the tail has fewer).
        const int split_ctas = static_cast<int>(all.size()) - tiles / wave * wave;
        if (tiles % wave != 0) {
          CHECK(most - fewest <= 1);
          CHECK(4 * split_ctas >= 3 * std::min(wave, tiles % wave * k_blocks));
        }
        REQUIRE(static_cast<int>(streamed.size()) == tiles);
        for (const auto& [tile, blocks] : streamed) {
          for (int count : blocks) CHECK(count == 1);
        }
        for (const auto& [tile, counts] : pieces) {
          for (int count : counts) CHECK(count == static_cast<int>(counts.size()));
        }
      }
    }
  }
}
