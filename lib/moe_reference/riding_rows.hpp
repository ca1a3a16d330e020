#pragma once
// An expert's last aligned block that holds only a few rows rides with the block before it: that
// block's grouped-GEMM tile multiplies its block_size rows and the riding ones (they come next in the
// aligned order), so the expert's weights stream once for both, and the riding block runs no tile of
// its own. At 64 rows per expert on average half the experts pass 64 rows by a few, and a tile of their
// own streamed the weights again for them. Plain constexpr arithmetic: the CUDA kernels call it
// (--expt-relaxed-constexpr), and the CPU reference and tests.

#include <cstdint>

namespace moeplan::moe_reference {

// A block that runs a grouped-GEMM tile: its index, its local expert, and the rows it multiplies,
// riding ones included.
struct RunningBlock {
  std::int32_t block = 0, expert = 0, rows = 0;
};

constexpr bool operator==(const RunningBlock& left, const RunningBlock& right) {
  return left.block == right.block && left.expert == right.expert && left.rows == right.rows;
}

// Whether the last block of an expert with `count` rows rides: it follows another of the expert's
// blocks and holds at most riding_rows rows (riding_rows 0: no block rides).
constexpr bool last_block_rides(int count, int block_size, int riding_rows) {
  return riding_rows > 0 && count > block_size && (count - 1) % block_size + 1 <= riding_rows;
}

// The blocks of an expert with `count` rows that run a tile: all of them, less a last one that rides.
constexpr int running_blocks_of(int count, int block_size, int riding_rows) {
  return (count + block_size - 1) / block_size - (last_block_rides(count, block_size, riding_rows) ? 1 : 0);
}

// The rows that block `index` of such an expert multiplies: block_size, the rest in its last running
// block, and there the riding rows as well.
constexpr int rows_of_block(int count, int index, int block_size, int riding_rows) {
  const int rest = count - index * block_size;
  const int most = block_size + (last_block_rides(count, block_size, riding_rows) ? riding_rows : 0);
  return rest <= most ? rest : block_size;
}

}  // namespace moeplan::moe_reference
