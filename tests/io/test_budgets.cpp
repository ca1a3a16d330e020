// Budgets: a request past a limit is refused naming the key and the limit; a file past its size is
// refused before it is read; an echoed token is cut.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "io/json_fields.hpp"

namespace {

std::string budget_error(double amount, double limit) {
  try {
    moeplan::check_budget("run.yaml", "search.tp", amount, limit, "list entries");
  } catch (const moeplan::InputError& error) {
    return error.what();
  }
  return "";
}

std::filesystem::path scratch_directory() {
  std::string name = (std::filesystem::temp_directory_path() / "moeplan-budgets-XXXXXX").string();
  REQUIRE(mkdtemp(name.data()) != nullptr);
  return name;
}

}  // namespace

TEST_CASE("check_budget: at the limit passes, one past it is refused with both numbers") {
  CHECK(budget_error(4096, 4096).empty());
  CHECK(budget_error(4097, 4096) ==
        "run.yaml: search.tp: expected at most 4096 list entries (docs/budgets.md), got 4097");
  // 8192 layers x 8192 slots^2 = 2^39 = 549755813888, written out in full rather than as 5.5e+11.
  CHECK(budget_error(549755813888.0, 2e9) ==
        "run.yaml: search.tp: expected at most 2000000000 list entries (docs/budgets.md), got 549755813888");
  CHECK(budget_error(std::nan(""), 1).empty());  // NaN is not above the limit: the readers refuse it
}

TEST_CASE("echoed: a long token is cut to 80 characters with its length") {
  CHECK(moeplan::echoed("short") == "short");
  const std::string exactly(80, 'x');
  CHECK(moeplan::echoed(exactly) == exactly);
  const std::string long_token(1000, 'y');
  CHECK(moeplan::echoed(long_token) == std::string(80, 'y') + "... (1000 characters)");
}

TEST_CASE("an InputError's expectation past 1000 characters is cut, so a message stays short") {
  const moeplan::InputError error("f.json", "key", std::string(5000, 'z'));
  // "f.json: key: expected " is 22 characters, then 1000 of the expectation and "... (5000 characters)".
  CHECK(std::string(error.what()) == "f.json: key: expected " + std::string(1000, 'z') + "... (5000 characters)");
}

TEST_CASE("check_input_size refuses a file past its limit without reading it (a sparse file of 1 GiB)") {
  const std::filesystem::path directory = scratch_directory();
  const std::filesystem::path big = directory / "big.json";
  std::ofstream(big) << "{";
  std::filesystem::resize_file(big, std::uintmax_t{1} << 30);  // sparse: no disk blocks are written
  CHECK_THROWS_WITH_AS(
      moeplan::check_input_size(big.string(), moeplan::kLargestDocument),
      (big.string() + ": expected a file of at most 64 MiB (docs/budgets.md), got 1073741824 bytes").c_str(),
      moeplan::InputError);
  CHECK_THROWS_AS(moeplan::read_json_file(big.string()), moeplan::InputError);
  CHECK_NOTHROW(moeplan::check_input_size(big.string(), std::uintmax_t{1} << 30));  // exactly at the limit
  std::filesystem::remove_all(directory);
}
