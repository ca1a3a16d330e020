// same_file: two spellings of one path, a symlink and its target, and different files.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/atomic_file.hpp"

using moeplan::same_file;

namespace {

// A fresh directory of this test's own under the system's temporary directory.
std::filesystem::path scratch_directory() {
  std::string name = (std::filesystem::temp_directory_path() / "moeplan-same-file-XXXXXX").string();
  REQUIRE(mkdtemp(name.data()) != nullptr);
  return name;
}

}  // namespace

TEST_CASE("same_file: one file under two names, through a link, and not yet written") {
  const std::filesystem::path directory = scratch_directory();
  const std::filesystem::path file = directory / "a.json";
  std::ofstream(file) << "{}";
  std::filesystem::create_symlink(file, directory / "link.json");
  CHECK(same_file(file, directory / "." / "a.json"));
  CHECK(same_file(file, directory / "link.json"));
  CHECK(same_file(directory / "new.json", directory / "sub" / ".." / "new.json"));  // neither exists
  CHECK_FALSE(same_file(file, directory / "b.json"));
  CHECK_FALSE(same_file(file, ""));
  CHECK_FALSE(same_file("", ""));
  std::filesystem::remove_all(directory);
}
