#include "eplb/layer_parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace moeplan::eplb {

namespace {

constexpr std::int64_t kLayersPerThread = 2;  // below this a thread's start costs more than it saves

// Hands out layers one at a time, counts finished ones and keeps the first exception.
class LayerQueue {
 public:
  LayerQueue(std::int64_t layers, const std::function<void(std::int64_t)>& work) : layers_(layers), work_(work) {}

  // Runs layers until none is left; returns after each one when `after_each` is given.
  void drain(const std::function<void(std::int64_t)>& after_each) {
    for (std::int64_t layer = next_++; layer < layers_; layer = next_++) {
      run(layer);
      const std::int64_t finished = ++finished_;
      if (after_each) after_each(finished);
    }
  }

  std::int64_t finished() const { return finished_; }

  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void run(std::int64_t layer) {
    try {
      work_(layer);
    } catch (...) {
      const std::lock_guard lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
      next_ = layers_;  // no new layers once one has failed
    }
  }

  std::int64_t layers_;
  const std::function<void(std::int64_t)>& work_;
  std::atomic<std::int64_t> next_{0};
  std::atomic<std::int64_t> finished_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

}  // namespace

int layer_threads(std::int64_t layers) {
  const auto cores = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::clamp(layers / kLayersPerThread, std::int64_t{1}, cores));
}

void for_each_layer(std::int64_t layers, const std::function<void(std::int64_t)>& work,
                    const std::function<void(std::int64_t)>& done) {
  LayerQueue queue(layers, work);
  std::vector<std::thread> helpers;
  for (int thread = 1; thread < layer_threads(layers); ++thread) {
    try {
      helpers.emplace_back([&queue] { queue.drain({}); });
    } catch (const std::system_error&) {
      break;  // no more threads to be had (a process limit): the ones started and this one do the rest
    }
  }
  queue.drain(done);
  for (std::thread& helper : helpers) helper.join();
  queue.rethrow();
  if (done && layers > 0) done(queue.finished());
}

}  // namespace moeplan::eplb
