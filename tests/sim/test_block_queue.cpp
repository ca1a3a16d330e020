// The free-block queue's labels, worked by hand.
#include <doctest/doctest.h>

#include "sim/block_queue.hpp"

using namespace moeplan;
using namespace moeplan::sim;

TEST_CASE("freed blocks are taken again tail first, and a hit's blocks are passed over") {
  FreeBlockQueue queue(4);  // labels 0-3, all free
  queue.take(3);            // the front reaches label 3
  CHECK(queue.size() == 1);
  const auto freed = queue.release(2);  // a sequence's two blocks: its last is label 4, its first label 5
  CHECK(freed == 6);
  CHECK(queue.size() == 3);
  CHECK(queue.cached_prefix(freed, 2) == 2);
  queue.take(1);  // label 3, a block that held nothing
  CHECK(queue.cached_prefix(freed, 2) == 2);
  queue.take(1);  // label 4: the sequence's last block
  CHECK(queue.cached_prefix(freed, 2) == 1);
  queue.reclaim(freed, 1);  // a hit takes label 5 back from the middle
  CHECK(queue.size() == 0);
  CHECK(queue.release(3) == 9);  // labels 6-8
  queue.take(1);                 // passes label 5 and takes label 6
  CHECK(queue.size() == 2);
  CHECK(queue.cached_prefix(9, 3) == 2);
}
