#pragma once
// Cooperative cancellation: the command line's SIGINT/SIGTERM handler raises the flag, and long loops
// in the library check it between units of work and stop by throwing Cancelled, so nothing half-done
// is written.
#include <atomic>
#include <stdexcept>

namespace moeplan {

class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("interrupted") {}
};

// The flag; lock-free, so a signal handler may store to it.
inline std::atomic<bool> cancellation_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// The signal that raised the flag (SIGINT or SIGTERM), so the command exits with 128 plus its number.
inline std::atomic<int> cancelling_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

// Raised while a call that may block for good runs (opening an input that turned into a FIFO): a signal
// then ends the process instead of waiting for a loop that never comes.
inline std::atomic<bool> blocking_call_in_progress{false};

// Throws Cancelled once the flag is raised.
inline void stop_if_cancelled() {
  if (cancellation_requested.load(std::memory_order_relaxed)) throw Cancelled();
}

}  // namespace moeplan
