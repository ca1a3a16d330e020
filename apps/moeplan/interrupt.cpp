#include "interrupt.hpp"

#include <csignal>

#include "io/cancellation.hpp"

namespace moeplan::cli {

namespace {

extern "C" void on_interrupt(int signal_number) {
  // A blocked open never reaches a cancellation check, and nothing is written yet: end now.
  cancelling_signal.store(signal_number);
  if (!cancellation_requested.exchange(true) && !blocking_call_in_progress.load()) return;
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

}  // namespace moeplan::cli
