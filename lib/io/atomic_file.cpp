#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <system_error>

#include "io/input_error.hpp"
#include "io/temporary_files.hpp"

namespace moeplan {

namespace {

constexpr const char* kCommandLine = "command line";
constexpr int kNameAttempts = 16;
constexpr std::size_t kKeptNameBytes = 200;  // of the target's name in its temporary's, under NAME_MAX

// What a path had to be, for an errno from lstat, open, mkdir or rename.
std::string expectation_for(int error) {
  switch (error) {
    case ENOENT: return "a path in an existing directory";
    case ELOOP: return "a path without a loop of symbolic links";
    case EACCES:
    case EPERM: return "a place it may write to (permission denied)";
    case ENOTDIR: return "a path whose folders are directories";
    case ENAMETOOLONG: return "a shorter path";
    case ENOSPC:
    case EDQUOT: return "enough space to write the output (the disk is full)";
    case EROFS: return "a writable file system (this one is read-only)";
    case EISDIR: return "a regular file or a new path, not a directory";
    default: return fmt::format("a path it can write ({})", std::strerror(error));
  }
}

[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& key, int error) {
  throw InputError(path.string(), key, expectation_for(error));
}

bool directory_is_empty(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::is_empty(path, error) && !error;
}

// Nothing of `path` exists: its folder must.
void check_new_path(const std::filesystem::path& path, const std::string& key) {
  const std::filesystem::path folder = path.parent_path().empty() ? "." : path.parent_path();
  struct stat status {};
  if (::stat(folder.c_str(), &status) != 0) refuse(path, key, errno);
  if (!S_ISDIR(status.st_mode)) refuse(path, key, ENOTDIR);
}

// A file output replaces a regular file or makes a new one; a directory output replaces an empty
// directory or one `replaceable` accepts. Links, devices, FIFOs and sockets are never replaced.
void check_target(const std::filesystem::path& path, const std::string& key, bool directory,
                  const OutputSet::Replaceable& replaceable) {
  if (path.empty()) throw InputError(kCommandLine, key, "a path, not an empty string");
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0) {
    if (errno != ENOENT) refuse(path, key, errno);
    check_new_path(path, key);
    return;
  }
  const std::string kind = directory ? "a directory" : "a regular file";
  if (S_ISLNK(status.st_mode)) {
    throw InputError(path.string(), key,
                     kind + " or a new path, not a symbolic link (it would be replaced, not written through)");
  }
  if (!directory && S_ISREG(status.st_mode)) return;
  if (directory && S_ISDIR(status.st_mode)) {
    if (directory_is_empty(path) || (replaceable && replaceable(path))) return;
    throw InputError(path.string(), key,
                     "a new path, an empty directory or a directory this command wrote before (it holds other files)");
  }
  if (S_ISDIR(status.st_mode)) throw InputError(path.string(), key, "a regular file or a new path, not a directory");
  if (S_ISREG(status.st_mode)) throw InputError(path.string(), key, "a directory or a new path, not a regular file");
  throw InputError(path.string(), key, kind + " or a new path, not a device, FIFO or socket");
}

std::string random_suffix() {
  std::random_device device;
  const std::uint64_t high = device();
  return fmt::format("{:016x}", (high << 32U) ^ device());
}

// ".NAME.RANDOM.tmp" beside `target`.
std::filesystem::path temporary_name(const std::filesystem::path& target) {
  const std::string name = target.filename().string().substr(0, kKeptNameBytes);
  return target.parent_path() / fmt::format(".{}.{}.tmp", name, random_suffix());
}

void write_all(int descriptor, const std::string& contents, const std::filesystem::path& target,
               const std::string& key) {
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t count = ::write(descriptor, contents.data() + written, contents.size() - written);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) refuse(target, key, errno);
    written += static_cast<std::size_t>(count);
  }
}

// Makes `name` exclusively (never an existing file, never through a link), records it in `made` and the
// temporary table as one step, writes `contents` and closes it. False when `name` already exists.
bool create_file(const std::filesystem::path& name, const std::filesystem::path& target, const std::string& key,
                 const std::string& contents, bool executable, std::vector<MadeTemporary>& made) {
  int descriptor = -1;
  {
    const SignalHold hold;
    descriptor = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, executable ? 0777 : 0666);
    if (descriptor >= 0) made.push_back({record_temporary(name.string()), name});
  }
  if (descriptor < 0 && errno == EEXIST) return false;
  if (descriptor < 0) refuse(target, key, errno);
  try {
    write_all(descriptor, contents, target, key);
  } catch (...) {
    ::close(descriptor);
    throw;
  }
  if (::close(descriptor) != 0) refuse(target, key, errno);
  return true;
}

// A file of its own under an unpredictable name beside `target`, holding `contents`; returns the name.
std::filesystem::path write_temporary(const std::filesystem::path& target, const std::string& key,
                                      const std::string& contents, bool executable, std::vector<MadeTemporary>& made) {
  for (int attempt = 0; attempt < kNameAttempts; ++attempt) {
    std::filesystem::path name = temporary_name(target);
    if (create_file(name, target, key, contents, executable, made)) return name;
  }
  refuse(target, key, EEXIST);
}

std::filesystem::path make_temporary_directory(const std::filesystem::path& target, const std::string& key,
                                               std::vector<MadeTemporary>& made) {
  for (int attempt = 0; attempt < kNameAttempts; ++attempt) {
    std::filesystem::path name = temporary_name(target);
    const SignalHold hold;
    if (::mkdir(name.c_str(), 0777) == 0) {
      made.push_back({record_temporary(name.string()), name});
      return name;
    }
    if (errno != EEXIST) refuse(target, key, errno);
  }
  refuse(target, key, EEXIST);
}

// A plain name for a file inside a directory output: not empty, no "/", not "." or "..".
void check_entry_name(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    throw std::invalid_argument("a directory output's file named '" + name + "'");
  }
}

bool names_directory(const std::filesystem::path& path) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
}

// Puts the directory `temporary` at `target`; a target holding files is swapped out in one step and
// its old files removed.
void rename_directory(const std::filesystem::path& temporary, const std::filesystem::path& target,
                      const std::string& key) {
  if (!names_directory(target) || directory_is_empty(target)) {
    if (::rename(temporary.c_str(), target.c_str()) != 0) refuse(target, key, errno);
    return;
  }
  if (::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
    refuse(target, key, errno);
  }
  std::error_code ignored;
  std::filesystem::remove_all(temporary, ignored);  // now the previous output
}

// Absolute, through every link that exists, without a trailing "/"; nullopt when it cannot be resolved
// (a loop of links, a folder it may not search).
std::optional<std::filesystem::path> resolved(const std::filesystem::path& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) return std::nullopt;
  std::filesystem::path result = std::filesystem::weakly_canonical(absolute, error);
  if (error) return std::nullopt;
  return result.has_filename() ? result : result.parent_path();
}

}  // namespace

OutputSet::~OutputSet() { discard(); }

void OutputSet::discard() {
  for (Output& candidate : outputs_) {
    while (!candidate.made.empty()) {  // the last made first: files before their folder
      std::error_code ignored;
      std::filesystem::remove(candidate.made.back().path, ignored);
      forget_temporary(candidate.made.back().slot);
      candidate.made.pop_back();
    }
    candidate.temporary.clear();
  }
}

void OutputSet::add_input(const std::string& key, const std::filesystem::path& path) {
  if (path.empty()) return;
  for (const Output& candidate : outputs_) check_against_input(candidate, key, path);
  inputs_.emplace_back(key, path);
}

void OutputSet::check_against_input(const Output& candidate, const std::string& key,
                                    const std::filesystem::path& path) const {
  if (same_file(candidate.path, path)) {
    throw InputError(kCommandLine, candidate.key,
                     fmt::format("a file other than {} ({}), which it would overwrite", key, path.string()));
  }
  if (candidate.directory && inside_directory(path, candidate.path)) {
    throw InputError(kCommandLine, candidate.key,
                     fmt::format("a directory that holds no input ({} {} is inside it)", key, path.string()));
  }
}

void OutputSet::check_output(const Output& candidate) const {
  for (const auto& [key, path] : inputs_) check_against_input(candidate, key, path);
  for (const Output& other : outputs_) {
    if (same_file(candidate.path, other.path) || (other.directory && inside_directory(candidate.path, other.path))) {
      throw InputError(kCommandLine, candidate.key,
                       fmt::format("a file other than {} ({}), which it also writes", other.key, other.path.string()));
    }
  }
  check_target(candidate.path, candidate.key, candidate.directory, candidate.replaceable);
}

void OutputSet::add_file(const std::string& key, const std::filesystem::path& path, bool executable) {
  Output candidate{key, path, false, executable, {}, {}, {}, {}, {}};
  check_output(candidate);
  outputs_.push_back(std::move(candidate));
}

void OutputSet::add_directory(const std::string& key, const std::filesystem::path& path, Replaceable replaceable) {
  // "deploy/" names the directory "deploy": its temporary goes beside it, not inside.
  const std::filesystem::path directory = path.has_filename() || !path.has_relative_path() ? path : path.parent_path();
  Output candidate{key, directory, true, false, std::move(replaceable), {}, {}, {}, {}};
  check_output(candidate);
  outputs_.push_back(std::move(candidate));
}

OutputSet::Output& OutputSet::output(const std::string& key) {
  const auto found =
      std::find_if(outputs_.begin(), outputs_.end(), [&](const Output& candidate) { return candidate.key == key; });
  if (found == outputs_.end()) throw std::logic_error("no output added with key " + key);
  return *found;
}

void OutputSet::set_contents(const std::string& key, std::string contents) {
  output(key).contents = std::move(contents);
}

void OutputSet::set_entries(const std::string& key, std::vector<DirectoryEntry> entries) {
  output(key).entries = std::move(entries);
}

void OutputSet::write_temporaries() {
  try {
    for (Output& candidate : outputs_) {
      if (!candidate.directory) {
        candidate.temporary =
            write_temporary(candidate.path, candidate.key, candidate.contents, candidate.executable, candidate.made);
        continue;
      }
      candidate.temporary = make_temporary_directory(candidate.path, candidate.key, candidate.made);
      for (const DirectoryEntry& entry : candidate.entries) {  // the folder is private: final names, made once
        check_entry_name(entry.name);
        if (!create_file(candidate.temporary / entry.name, candidate.path, candidate.key, entry.contents,
                         entry.executable, candidate.made)) {
          throw std::invalid_argument("a directory output's file named twice: '" + entry.name + "'");
        }
      }
    }
  } catch (...) {
    discard();
    throw;
  }
}

void OutputSet::commit() {
  const SignalHold hold;
  for (Output& candidate : outputs_) {
    if (candidate.directory) {
      rename_directory(candidate.temporary, candidate.path, candidate.key);
    } else if (::rename(candidate.temporary.c_str(), candidate.path.c_str()) != 0) {
      refuse(candidate.path, candidate.key, errno);
    }
    for (const MadeTemporary& made : candidate.made) forget_temporary(made.slot);
    candidate.made.clear();
    candidate.temporary.clear();
  }
}

void write_file_atomically(const std::filesystem::path& target, const std::string& contents) {
  OutputSet outputs;
  outputs.add_file("", target);
  outputs.set_contents("", contents);
  outputs.write_temporaries();
  outputs.commit();
}

bool same_file(const std::filesystem::path& first, const std::filesystem::path& second) {
  if (first.empty() || second.empty()) return false;
  struct stat first_status {};
  struct stat second_status {};
  if (::stat(first.c_str(), &first_status) == 0 && ::stat(second.c_str(), &second_status) == 0) {
    return first_status.st_dev == second_status.st_dev && first_status.st_ino == second_status.st_ino;
  }
  const auto first_resolved = resolved(first);
  return first_resolved && first_resolved == resolved(second);
}

bool inside_directory(const std::filesystem::path& path, const std::filesystem::path& directory) {
  const auto inner = resolved(path);
  const auto outer = resolved(directory);
  if (!inner || !outer) return false;
  const auto [outer_end, inner_at] = std::mismatch(outer->begin(), outer->end(), inner->begin(), inner->end());
  return outer_end == outer->end() && inner_at != inner->end();
}

}  // namespace moeplan
