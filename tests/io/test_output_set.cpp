// OutputSet: outputs checked against inputs, each other and what the target is; written to exclusive
// temporaries and committed together; nothing left behind when refused, failed or discarded.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "io/atomic_file.hpp"
#include "io/input_error.hpp"

using moeplan::DirectoryEntry;
using moeplan::InputError;
using moeplan::OutputSet;

namespace {

std::filesystem::path scratch_directory() {
  std::string name = (std::filesystem::temp_directory_path() / "moeplan-output-set-XXXXXX").string();
  REQUIRE(mkdtemp(name.data()) != nullptr);
  return name;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream stream(file);
  std::stringstream text;
  text << stream.rdbuf();
  return text.str();
}

// Every name in `directory`, sorted.
std::set<std::string> names_in(const std::filesystem::path& directory) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) names.insert(entry.path().filename());
  return names;
}

// The expectation of the InputError `action` throws, "" when it throws none.
template <typename Action>
std::string refusal(Action action) {
  try {
    action();
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("OutputSet: an output that is an input, under any name, is refused before anything is written") {
  const std::filesystem::path directory = scratch_directory();
  const std::filesystem::path model = directory / "model.yaml";
  std::ofstream(model) << "kept";
  std::filesystem::create_hard_link(model, directory / "hard.yaml");
  std::filesystem::create_symlink(model, directory / "soft.yaml");
  for (const auto& output : {model, directory / "." / "model.yaml", directory / "hard.yaml", directory / "soft.yaml"}) {
    CAPTURE(output);
    OutputSet outputs;
    outputs.add_input("--model", model);
    // The message is the one the option rules in docs/outputs.md give, written out by hand.
    CHECK(refusal([&] { outputs.add_file("--json", output); }) ==
          "command line: --json: expected a file other than --model (" + model.string() +
              "), which it would overwrite");
  }
  OutputSet late;  // an input added after the output is checked against it too
  late.add_file("--json", directory / "hard.yaml");
  CHECK(refusal([&] { late.add_input("--model", model); }).find("which it would overwrite") != std::string::npos);
  CHECK(read_text(model) == "kept");
  CHECK(names_in(directory) == std::set<std::string>{"hard.yaml", "model.yaml", "soft.yaml"});
  std::filesystem::remove_all(directory);
}

TEST_CASE("OutputSet: two outputs on one file, and targets that are not regular files, are refused") {
  const std::filesystem::path directory = scratch_directory();
  OutputSet outputs;
  outputs.add_file("--csv", directory / "a.csv");
  CHECK(refusal([&] {
          outputs.add_file("--json", directory / "sub" / ".." / "a.csv");
        }).find("--json: expected a file other than --csv") != std::string::npos);
  std::filesystem::create_directory(directory / "folder");
  REQUIRE(mkfifo((directory / "fifo").c_str(), 0600) == 0);
  std::filesystem::create_symlink(directory / "a.csv", directory / "link");
  CHECK(refusal([&] { outputs.add_file("--report", directory / "folder"); }).ends_with("not a directory"));
  CHECK(refusal([&] { outputs.add_file("--report", directory / "fifo"); }).ends_with("not a device, FIFO or socket"));
  CHECK(refusal([&] { outputs.add_file("--report", directory / "link"); }).find("not a symbolic link") !=
        std::string::npos);
  CHECK(refusal([&] {
          outputs.add_file("--report", directory / "missing" / "r.html");
        }).ends_with("expected a path in an existing directory"));
  CHECK(refusal([&] { outputs.add_file("--report", ""); }) ==
        "command line: --report: expected a path, not an empty string");
  std::filesystem::remove_all(directory);
}

TEST_CASE("OutputSet: temporaries are hidden, unpredictable and exclusive; commit renames all, discard none") {
  const std::filesystem::path directory = scratch_directory();
  std::ofstream(directory / "victim") << "kept";
  // A link planted at the name the old writer used (TARGET.tmp.PID) is neither followed nor removed.
  std::filesystem::create_symlink(directory / "victim",
                                  directory / ("a.json.tmp." + std::to_string(static_cast<long>(::getpid()))));
  {
    OutputSet outputs;
    outputs.add_file("--json", directory / "a.json");
    outputs.add_file("--csv", directory / "b.csv");
    outputs.set_contents("--json", "{}\n");
    outputs.set_contents("--csv", "x\n");
    outputs.write_temporaries();
    std::set<std::string> temporaries;
    for (const std::string& name : names_in(directory)) {
      if (name.ends_with(".tmp")) temporaries.insert(name);
    }
    // Two temporaries, ".a.json.<16 hex digits>.tmp" and ".b.csv.<16 hex digits>.tmp": 1 + 6 + 1 + 16 + 4
    // = 28 and 1 + 5 + 1 + 16 + 4 = 27 characters.
    REQUIRE(temporaries.size() == 2);
    CHECK(temporaries.begin()->size() == 28);
    CHECK(temporaries.rbegin()->size() == 27);
    CHECK_FALSE(std::filesystem::exists(directory / "a.json"));
  }                                        // discarded: never committed
  CHECK(names_in(directory).size() == 2);  // the victim and the planted link only
  OutputSet outputs;
  outputs.add_file("--json", directory / "a.json");
  outputs.add_file("--csv", directory / "b.csv");
  outputs.set_contents("--json", "{}\n");
  outputs.set_contents("--csv", "x\n");
  outputs.write_temporaries();
  outputs.commit();
  CHECK(read_text(directory / "a.json") == "{}\n");
  CHECK(read_text(directory / "b.csv") == "x\n");
  CHECK(read_text(directory / "victim") == "kept");
  CHECK(names_in(directory).size() == 4);
  std::filesystem::remove_all(directory);
}

TEST_CASE("OutputSet: a directory output is written beside its target and renamed into place, or refused") {
  const std::filesystem::path directory = scratch_directory();
  const std::filesystem::path out = directory / "deploy";
  const auto previous_output = [](const std::filesystem::path& path) {
    return std::filesystem::exists(path / "first.sh");
  };
  const std::vector<DirectoryEntry> entries = {{"first.sh", "#!/bin/sh\n", true}, {"data.json", "{}\n", false}};
  for (int round = 0; round < 2; ++round) {  // new, then replacing the first round's output
    OutputSet outputs;
    outputs.add_directory("--out", directory / "deploy/", previous_output);
    outputs.set_entries("--out", entries);
    outputs.write_temporaries();
    outputs.commit();
  }
  CHECK(names_in(directory) == std::set<std::string>{"deploy"});
  CHECK(names_in(out) == std::set<std::string>{"data.json", "first.sh"});
  CHECK((std::filesystem::status(out / "first.sh").permissions() & std::filesystem::perms::owner_exec) !=
        std::filesystem::perms::none);
  std::ofstream(directory / "other") << "";
  std::filesystem::create_directory(directory / "mine");
  std::ofstream(directory / "mine" / "notes.txt") << "kept";
  OutputSet outputs;
  CHECK(refusal([&] {
          outputs.add_directory("--out", directory / "mine", previous_output);
        }).find("holds other files") != std::string::npos);
  CHECK(refusal([&] { outputs.add_directory("--out", directory / "other"); }).ends_with("not a regular file"));
  outputs.add_input("--plan", out / "data.json");
  CHECK(refusal([&] { outputs.add_directory("--out", out, previous_output); }).find("holds no input") !=
        std::string::npos);
  std::filesystem::remove_all(directory);
}

TEST_CASE("OutputSet: a write that fails part-way removes every temporary made so far") {
  const std::filesystem::path directory = scratch_directory();
  OutputSet outputs;
  outputs.add_file("--json", directory / "a.json");
  outputs.add_directory("--out", directory / "deploy");
  outputs.set_contents("--json", "{}\n");
  outputs.set_entries("--out", {{"same", "1", false}, {"same", "2", false}});  // one name twice: the second fails
  CHECK_THROWS_AS(outputs.write_temporaries(), std::invalid_argument);
  CHECK(names_in(directory).empty());
  std::filesystem::remove_all(directory);
}
