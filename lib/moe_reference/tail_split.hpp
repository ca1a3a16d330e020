#pragma once
// The tail wave split along k. A grouped GEMM's tiles run whole while they fill whole waves of
// `wave` CTAs (the CTAs the SMs hold at once); each tile of the last, partial wave is split into as
// many k pieces as fill that wave, so that every SM keeps streaming to the end. This is Stream-K's
// hybrid of data-parallel waves and one split wave (Osama et al., "Stream-K: Work-centric Parallel
// Decomposition for Dense Matrix Multiplication", PPoPP 2023), with even pieces of one tile each.
// Plain constexpr arithmetic: the CUDA kernel calls it (--expt-relaxed-constexpr), and the CPU tests.
#include <algorithm>

namespace moeplan::moe_reference {

// One CTA's work: k blocks first .. last - 1 of tile `tile`. The `pieces` pieces of a split tile
// share workspace slot `slot` (below `wave`); slot < 0: the tile is whole.
struct TileWork {
  int tile = 0, first = 0, last = 0, slot = -1, pieces = 1;
};

// The CTAs a launch needs at most: every tile whole, plus one split wave.
constexpr long tail_split_ctas(long max_tiles, int wave) { return max_tiles + wave; }

// The work of CTA `cta` of a launch of `tiles` tiles of k_blocks each, or false where the launch has
// less work than CTAs. CTAs below the whole waves take a tile each; the pieces of one tail tile are
// neighbouring CTAs.
constexpr bool tail_split_work(int cta, int tiles, int wave, int k_blocks, TileWork& work) {
  const int whole = tiles / wave * wave, tail = tiles - whole;
  if (cta < whole) {
    work = {cta, 0, k_blocks, -1, 1};
    return true;
  }
  const int pieces = tail > 0 ? std::min(k_blocks, wave / tail) : 1;
  const int piece_index = cta - whole;
  if (piece_index >= tail * pieces) return false;
  const int piece = piece_index % pieces, slot = piece_index / pieces;
  work = {whole + slot, piece * k_blocks / pieces, (piece + 1) * k_blocks / pieces, pieces > 1 ? slot : -1, pieces};
  return true;
}

}  // namespace moeplan::moe_reference
