#pragma once
// Every output of a command goes through one OutputSet. Each output is checked before any work is done
// (not an input, not another output, a regular file or a new path), written to a temporary file made
// exclusively beside its target under an unpredictable name, and all are renamed into place together
// or none is. A refused, failed or interrupted run leaves no output, no temporary file, and every
// input as it was. docs/outputs.md states the rules.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace moeplan {

// One file of a directory output: its name inside the directory, its contents, whether it is a script.
struct DirectoryEntry {
  std::string name;
  std::string contents;
  bool executable = false;
};

// A temporary file or folder an OutputSet made: its slot in the temporary table and its name.
struct MadeTemporary {
  std::size_t slot = 0;
  std::filesystem::path path;
};

class OutputSet {
 public:
  // Whether an existing directory that holds files may be replaced whole (it holds a previous output).
  using Replaceable = std::function<bool(const std::filesystem::path&)>;

  OutputSet() = default;
  ~OutputSet();  // removes every temporary not yet renamed into place
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // A file the command reads, named by option or key `key`; every output is checked against it, those
  // added before too. An empty path (an option not given) is skipped.
  void add_input(const std::string& key, const std::filesystem::path& path);
  // A file output named by option `key`, checked now (InputError). Its contents come later.
  void add_file(const std::string& key, const std::filesystem::path& path, bool executable = false);
  // A directory of files, written to a temporary directory beside `path` and renamed into place: `path`
  // must be new, an empty directory, or a directory `replaceable` accepts.
  void add_directory(const std::string& key, const std::filesystem::path& path, Replaceable replaceable = {});
  void set_contents(const std::string& key, std::string contents);
  void set_entries(const std::string& key, std::vector<DirectoryEntry> entries);
  // Writes every output to its temporary; on failure removes them all and throws InputError.
  void write_temporaries();
  // Renames every temporary into place, with SIGINT and SIGTERM held back until the last is renamed.
  void commit();

 private:
  struct Output {
    std::string key;
    std::filesystem::path path;
    bool directory = false;
    bool executable = false;
    Replaceable replaceable;
    std::string contents;
    std::vector<DirectoryEntry> entries;
    std::filesystem::path temporary;  // empty until written
    std::vector<MadeTemporary> made;  // the temporary, then a directory's files
  };

  Output& output(const std::string& key);
  void check_output(const Output& candidate) const;
  void check_against_input(const Output& candidate, const std::string& key, const std::filesystem::path& path) const;
  void discard();

  std::vector<std::pair<std::string, std::filesystem::path>> inputs_;
  std::vector<Output> outputs_;
};

// One output, no inputs: checked, written to a temporary and renamed into place. The temporary has an
// unpredictable name and is created exclusively (a planted file or link there is never followed). An
// existing target must be a regular file: a link, device, FIFO or directory is refused, so writing never
// replaces one with a plain file.
void write_file_atomically(const std::filesystem::path& target, const std::string& contents);

// Whether two paths name one file, whether or not it exists yet ("a.json" and "./a.json", a symlink and
// its target, two hard links); false when either is empty.
bool same_file(const std::filesystem::path& first, const std::filesystem::path& second);

// Whether `path` lies inside `directory` (both resolved through links, neither need exist).
bool inside_directory(const std::filesystem::path& path, const std::filesystem::path& directory);

}  // namespace moeplan
