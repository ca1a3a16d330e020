#pragma once
// The temporary files and directories this process has made and not yet renamed into place or removed.
// While any is recorded, SIGINT, SIGTERM, SIGHUP and SIGPIPE remove them all (with async-signal-safe calls only) and
// then end the process by the same signal, so an interrupted run leaves nothing behind.
#include <cstddef>
#include <string>

namespace moeplan {

// Records `path` (a file, or a directory whose files are recorded too) and returns its slot; installs
// the signal handlers with the first record. Throws std::length_error when all 65536 slots are taken.
std::size_t record_temporary(const std::string& path);

// Forgets the path in `slot` once it was renamed into place or removed; restores the signal handlers
// that were there before when no path is left.
void forget_temporary(std::size_t slot);

// Holds SIGINT and SIGTERM back for its lifetime (while outputs are renamed into place, so that a
// signal sees all of them committed or none); a signal that came meanwhile is delivered at the end.
class SignalHold {
 public:
  SignalHold();
  ~SignalHold();
  SignalHold(const SignalHold&) = delete;
  SignalHold& operator=(const SignalHold&) = delete;

 private:
  unsigned long long previous_mask_[16] = {};  // a sigset_t, kept opaque to the header
};

}  // namespace moeplan
