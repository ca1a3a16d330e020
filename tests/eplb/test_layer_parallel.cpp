// Layers spread over threads: every layer runs exactly once, results land by index, progress is counted
// on the calling thread, and a layer's exception reaches the caller.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "eplb/layer_parallel.hpp"

using namespace moeplan::eplb;

TEST_CASE("threads: one per core, at least two layers each, never none") {
  const auto cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CHECK(layer_threads(0) == 1);
  CHECK(layer_threads(1) == 1);
  CHECK(layer_threads(3) == 1);                   // 3 / 2 = 1 thread
  CHECK(layer_threads(4) == std::min(2, cores));  // 4 / 2 = 2 threads where there are 2 cores
  CHECK(layer_threads(1000) == cores);
}

TEST_CASE("every layer runs once and its result lands at its own index") {
  constexpr std::int64_t kLayers = 61;
  std::vector<std::int64_t> squares(kLayers, -1);
  std::vector<std::atomic<int>> runs(kLayers);
  for_each_layer(kLayers, [&](std::int64_t layer) {
    squares[static_cast<std::size_t>(layer)] = layer * layer;
    ++runs[static_cast<std::size_t>(layer)];
  });
  for (std::int64_t layer = 0; layer < kLayers; ++layer) {
    CHECK(squares[static_cast<std::size_t>(layer)] == layer * layer);
    CHECK(runs[static_cast<std::size_t>(layer)] == 1);
  }
}

TEST_CASE("progress is reported on the calling thread, never falling, ending with every layer") {
  const auto caller = std::this_thread::get_id();
  std::vector<std::int64_t> reported;
  bool on_caller = true;
  for_each_layer(
      40, [](std::int64_t) {},
      [&](std::int64_t finished) {
        on_caller = on_caller && std::this_thread::get_id() == caller;
        reported.push_back(finished);
      });
  CHECK(on_caller);
  REQUIRE_FALSE(reported.empty());
  for (std::size_t index = 1; index < reported.size(); ++index) CHECK(reported[index] >= reported[index - 1]);
  CHECK(reported.back() == 40);  // the last report, after every thread is joined, counts them all
}

TEST_CASE("a layer's exception reaches the caller after the threads are joined") {
  CHECK_THROWS_WITH_AS(for_each_layer(20,
                                      [&](std::int64_t layer) {
                                        if (layer == 7) throw std::invalid_argument("layer 7");
                                      }),
                       "layer 7", std::invalid_argument);
}

TEST_CASE("no layers: nothing runs") {
  int calls = 0;
  for_each_layer(0, [&](std::int64_t) { ++calls; });
  CHECK(calls == 0);
}
