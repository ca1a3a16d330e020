#pragma once
// The tail wave split along k. A grouped GEMM's tiles run whole while they fill whole waves of
// `wave` CTAs (the CTAs the SMs hold at once); the last, partial wave's tiles are split along k so that
// every SM keeps streaming to the end. Each tail tile is cut into as many even pieces as the wave holds
// copies of the tail; where that leaves more than a quarter of the wave idle (184 tail tiles on a wave
// of 264 would run unsplit on 184 CTAs), the tail's k blocks, laid end to end, are dealt out evenly to
// the whole wave instead, a CTA's share ending one tile and starting the next. These are Stream-K's
// data-parallel waves plus one split wave (Osama et al., "Stream-K: Work-centric Parallel Decomposition
// for Dense Matrix Multiplication", PPoPP 2023). Every piece of a split tile adds its partial sums into
// a workspace slot, so the even pieces stay where they keep the wave busy: dealt-out shares split
// nearly every tail tile, even pieces only as many as fill the wave.
// Plain constexpr arithmetic: the CUDA kernel calls it (--expt-relaxed-constexpr), and the CPU tests.
#include <algorithm>

namespace moeplan::moe {

// One piece of a CTA's work: k blocks first .. last - 1 of tile `tile`. The `pieces` pieces of a split
// tile share workspace slot `slot` (below `wave`); slot < 0: the tile is whole.
struct TileWork {
  int tile = 0, first = 0, last = 0, slot = -1, pieces = 1;
};

// The CTAs a launch needs at most: every tile whole, plus one split wave.
constexpr long tail_split_ctas(long max_tiles, int wave) { return max_tiles + wave; }

// How a launch of `tiles` tiles of k_blocks each falls to its CTAs: CTAs below `whole` take a tile
// each, the split wave's CTAs follow, one or two pieces each.
class TailSplit {
 public:
  constexpr TailSplit(int tiles, int wave, int k_blocks)
      : k_blocks_(k_blocks),
        whole_(tiles / wave * wave),
        tail_(tiles - whole_),
        even_pieces_(tail_ > 0 ? std::min(k_blocks, wave / tail_) : 1),
        dealt_(4L * tail_ * even_pieces_ < 3L * wave),
        tail_blocks_(static_cast<long>(tail_) * k_blocks),
        split_ctas_(dealt_ ? std::min<long>(wave, tail_blocks_) : static_cast<long>(tail_) * even_pieces_) {}

  // 0 where CTA `cta` has no work, 2 where its dealt share crosses a tile boundary.
  constexpr int piece_count(int cta) const {
    if (cta < whole_) return 1;
    const long index = cta - whole_;
    if (index >= split_ctas_) return 0;
    if (!dealt_) return 1;
    return first_block(index + 1) > (first_block(index) / k_blocks_ + 1) * k_blocks_ ? 2 : 1;
  }

  // Piece `piece` (0 or 1) of CTA `cta`'s work.
  constexpr TileWork piece(int cta, int piece) const {
    if (cta < whole_) return {cta, 0, k_blocks_, -1, 1};
    const long index = cta - whole_;
    if (!dealt_) {
      const int share = static_cast<int>(index % even_pieces_), slot = static_cast<int>(index / even_pieces_);
      return {whole_ + slot, share * k_blocks_ / even_pieces_, (share + 1) * k_blocks_ / even_pieces_,
              even_pieces_ > 1 ? slot : -1, even_pieces_};
    }
    const long begin = first_block(index), end = first_block(index + 1);
    const int tail_tile = static_cast<int>(begin / k_blocks_) + piece;
    const long tile_first = static_cast<long>(tail_tile) * k_blocks_;
    const int pieces = static_cast<int>(cta_holding(tile_first + k_blocks_ - 1) - cta_holding(tile_first) + 1);
    return {whole_ + tail_tile, static_cast<int>(std::max(begin, tile_first) - tile_first),
            static_cast<int>(std::min(end, tile_first + k_blocks_) - tile_first), pieces > 1 ? tail_tile : -1, pieces};
  }

 private:
  // Dealt shares: split CTA c takes the tail's blocks first_block(c) .. first_block(c + 1) - 1, at most
  // k_blocks of them (the tail has fewer tiles than the wave has CTAs): at most one tile boundary.
  constexpr long first_block(long index) const { return index * tail_blocks_ / split_ctas_; }
  // The split CTA whose share holds the tail's block `block`: the last c with first_block(c) <= block.
  constexpr long cta_holding(long block) const { return ((block + 1) * split_ctas_ - 1) / tail_blocks_; }

  int k_blocks_, whole_, tail_, even_pieces_;
  bool dealt_;
  long tail_blocks_, split_ctas_;
};

}  // namespace moeplan::moe
