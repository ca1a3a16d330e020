#include "io/temporary_files.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace moeplan {

namespace {

constexpr std::size_t kSlots = 65536;
constexpr std::array<int, 4> kSignals = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

// Each slot holds a path owned by the table (from strdup) or null; a signal handler only reads it.
std::array<std::atomic<char*>, kSlots> slots;
std::atomic<std::size_t> recorded{0};
std::array<struct sigaction, kSignals.size()> previous_actions;

void remove_recorded() {
  for (auto& slot : slots) {
    if (const char* path = slot.load()) ::unlink(path);
  }
  for (auto& slot : slots) {  // directories once their files are gone
    if (const char* path = slot.load()) ::rmdir(path);
  }
}

extern "C" void remove_and_reraise(int signal_number) {
  const int saved_errno = errno;
  remove_recorded();
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  ::sigaction(signal_number, &default_action, nullptr);
  ::raise(signal_number);  // blocked inside the handler: delivered, and fatal, once it returns
  errno = saved_errno;
}

void install_handlers() {
  struct sigaction action {};
  action.sa_handler = remove_and_reraise;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : kSignals) sigaddset(&action.sa_mask, signal_number);
  for (std::size_t index = 0; index < kSignals.size(); ++index) {
    ::sigaction(kSignals[index], &action, &previous_actions[index]);
  }
}

void restore_handlers() {
  for (std::size_t index = 0; index < kSignals.size(); ++index) {
    ::sigaction(kSignals[index], &previous_actions[index], nullptr);
  }
}

sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int signal_number : kSignals) sigaddset(&set, signal_number);
  return set;
}

}  // namespace

std::size_t record_temporary(const std::string& path) {
  char* copy = ::strdup(path.c_str());
  if (copy == nullptr) throw std::bad_alloc();
  static std::size_t next = 0;  // where the last search stopped: recording n paths takes O(n), not O(n^2)
  for (std::size_t step = 0; step < kSlots; ++step) {
    const std::size_t slot = (next + step) % kSlots;
    char* empty = nullptr;
    if (slots[slot].compare_exchange_strong(empty, copy)) {
      if (recorded.fetch_add(1) == 0) install_handlers();
      next = slot + 1;
      return slot;
    }
  }
  std::free(copy);
  throw std::length_error("more than 65536 temporary files at once");
}

void forget_temporary(std::size_t slot) {
  char* held = slots.at(slot).exchange(nullptr);
  if (held == nullptr) return;
  std::free(held);
  if (recorded.fetch_sub(1) == 1) restore_handlers();
}

SignalHold::SignalHold() {
  static_assert(sizeof(previous_mask_) >= sizeof(sigset_t));
  const sigset_t set = handled_signals();
  ::sigprocmask(SIG_BLOCK, &set, reinterpret_cast<sigset_t*>(previous_mask_));
}

SignalHold::~SignalHold() { ::sigprocmask(SIG_SETMASK, reinterpret_cast<sigset_t*>(previous_mask_), nullptr); }

}  // namespace moeplan
