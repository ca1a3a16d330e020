// Every reader's opener refuses what is not a regular file before opening it, naming the path.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/input_error.hpp"
#include "io/input_file.hpp"

namespace {

std::string refusal(const std::string& file) {
  try {
    moeplan::read_input_file(file, 1 << 20);
  } catch (const moeplan::InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a FIFO, a directory and a device are refused by name; a regular file is read whole") {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("moeplan-input-file-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const std::string fifo = (folder / "f").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Opening a FIFO for reading would block until a writer came: the refusal comes first.
  CHECK(refusal(fifo) == fifo + ": expected a regular file to read, got a FIFO");
  CHECK(refusal(folder.string()) == folder.string() + ": expected a regular file to read, got a directory");
  CHECK(refusal("/dev/null") == "/dev/null: expected a regular file to read, got a device");
  CHECK(refusal((folder / "missing").string()) ==
        (folder / "missing").string() + ": expected an existing, readable file");
  std::ofstream(folder / "text") << "abc";
  CHECK(moeplan::read_input_file((folder / "text").string(), 3) == "abc");
  // 3 bytes against a 2-byte budget.
  CHECK_THROWS_AS(moeplan::read_input_file((folder / "text").string(), 2), moeplan::InputError);
  std::filesystem::remove_all(folder);
}
