// Atomic output files: the temporary cannot be planted, and only a regular file or a new path is
// replaced.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/atomic_file.hpp"
#include "io/input_error.hpp"

namespace {

std::filesystem::path fresh_folder(const std::string& name) {
  const auto folder = std::filesystem::temp_directory_path() / ("moeplan-test-atomic-" + name);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

std::string contents_of(const std::filesystem::path& file) {
  std::ifstream stream(file);
  std::stringstream text;
  text << stream.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a new file and an existing regular file are written whole") {
  const auto folder = fresh_folder("regular");
  moeplan::write_file_atomically(folder / "out.json", "first");
  moeplan::write_file_atomically(folder / "out.json", "second");
  CHECK(contents_of(folder / "out.json") == "second");
  // Nothing but the output is left in the folder.
  CHECK(std::distance(std::filesystem::directory_iterator(folder), std::filesystem::directory_iterator()) == 1);
  std::filesystem::remove_all(folder);
}

TEST_CASE("a link planted at the old predictable temporary name is never followed") {
  // The temporary used to be OUT.tmp.<pid>, opened with truncation: a link there overwrote its target.
  const auto folder = fresh_folder("planted");
  std::ofstream(folder / "victim") << "keep me";
  std::filesystem::create_symlink(folder / "victim", folder / ("out.json.tmp." + std::to_string(::getpid())));
  moeplan::write_file_atomically(folder / "out.json", "output");
  CHECK(contents_of(folder / "victim") == "keep me");
  CHECK(contents_of(folder / "out.json") == "output");
  std::filesystem::remove_all(folder);
}

TEST_CASE("a link, a FIFO or a directory as the output is refused and left as it was") {
  const auto folder = fresh_folder("special");
  std::ofstream(folder / "target") << "unchanged";
  std::filesystem::create_symlink(folder / "target", folder / "link.json");
  REQUIRE(::mkfifo((folder / "fifo.json").c_str(), 0600) == 0);
  std::filesystem::create_directory(folder / "dir.json");
  for (const char* name : {"link.json", "fifo.json", "dir.json"}) {
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(moeplan::write_file_atomically(folder / name, "x"), doctest::Contains("a regular file"),
                         moeplan::InputError);
  }
  CHECK(std::filesystem::is_symlink(folder / "link.json"));
  CHECK(contents_of(folder / "target") == "unchanged");
  CHECK(std::filesystem::is_fifo(folder / "fifo.json"));
  CHECK(std::filesystem::is_directory(folder / "dir.json"));
  // No temporary was left beside them: target, link, fifo, dir.
  CHECK(std::distance(std::filesystem::directory_iterator(folder), std::filesystem::directory_iterator()) == 4);
  std::filesystem::remove_all(folder);
}
