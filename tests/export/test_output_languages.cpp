// Each output language's one writer, read back by a real reader of that language: yaml-cpp for YAML
// (lws.yaml whole, and single values), sh -n and a shell that prints its arguments for shell words.
#include <doctest/doctest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "export/exporter.hpp"
#include "export/hosts.hpp"
#include "export/launch_command.hpp"
#include "export/yaml_text.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::contains;

namespace {

// Values every reader must get back whole: YAML 1.1's extra line breaks (NEL, U+2028, U+2029), a YAML
// document start, flow and comment characters, words YAML 1.1 types, and the shell's metacharacters.
const std::vector<std::string> kHostile = {
    "plain",     "a\nb",      "x\xc2\x85y", "x\xe2\x80\xa8y", "x\xe2\x80\xa9y", "---\nkind: Pod", "yes",     "- item",
    "{a: b}",    "# comment", "it's",       "\"quoted\"",     "$(touch x)",     "`id`",           "a;b|c&d", " leading",
    "trailing ", "tab\there", "",           "back\\slash",    "\x7f\xc2\x9f"};

// What `sh` makes of `words`: each argument on a line of its own.
std::string shell_arguments(const std::string& words) {
  const std::filesystem::path script =
      std::filesystem::temp_directory_path() / ("moeplan-argv-" + std::to_string(::getpid()) + ".sh");
  std::ofstream(script) << "for argument in " << words << "; do printf '%s\\n' \"$argument\"; done\n";
  std::string output;
  FILE* pipe = ::popen(("sh " + script.string()).c_str(), "r");
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  ::pclose(pipe);
  std::filesystem::remove(script);
  return output;
}

bool shell_syntax_ok(const std::string& script) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("moeplan-syntax-" + std::to_string(::getpid()) + ".sh");
  std::ofstream(file) << script;
  const int status = std::system(("sh -n " + file.string()).c_str());
  std::filesystem::remove(file);
  return status == 0;
}

const OutputFile& file_named(const ExportResult& result, const std::string& name) {
  for (const OutputFile& file : result.files) {
    if (file.name == name) return file;
  }
  FAIL("no output file " << name);
  return result.files.front();
}

}  // namespace

TEST_CASE("yaml_quoted, yaml_block and yaml_key read back through yaml-cpp as exactly the text written") {
  for (const std::string& value : kHostile) {
    CAPTURE(value);
    CHECK(YAML::Load("key: " + yaml_quoted(value))["key"].as<std::string>() == value);
    CHECK(YAML::Load("key: " + yaml_block(value, 2))["key"].as<std::string>() == value);
    CHECK(YAML::Load(yaml_key(value) + ": 1")[value].as<int>() == 1);
    // YAML 1.1's line breaks never reach the file raw (a 1.1 reader would start a new line there).
    for (const char* line_break : {"\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9"})
      CHECK_FALSE(contains(yaml_quoted(value) + yaml_block(value, 2), line_break));
  }
  // A script of printable lines stays a readable literal block: "|", then each line indented by 2.
  CHECK(yaml_block("exec a \\\n    --b c\n", 2) == "|\n  exec a \\\n      --b c\n");
  CHECK(yaml_quoted("x\xe2\x80\xa8y") == "\"x\\u2028y\"");
  // A block keeps one final line break and drops the empty lines after it, so text ending in two is quoted.
  CHECK(yaml_block("a\n\n", 2) == "\"a\\n\\n\"\n");
  CHECK(YAML::Load("key: " + yaml_block("a\n\n", 2))["key"].as<std::string>() == "a\n\n");
}

TEST_CASE("shell_quote: sh reads every hostile value back as one whole argument; sh -n accepts the scripts") {
  std::string words;
  std::string expected;
  for (const std::string& value : kHostile) {
    if (value.find('\n') != std::string::npos) continue;  // one argument a line below
    words += " " + shell_quote(value);
    expected += value + "\n";
  }
  CHECK(shell_arguments(words) == expected);
  LaunchCommand command;
  command.program = {"engine"};
  for (const std::string& value : kHostile) command.add("--value", value);
  CHECK(shell_syntax_ok(render_script(command, "a\ncomment\xe2\x80\xa8with breaks")));
}

TEST_CASE("[lws-api] lws.yaml reads back through yaml-cpp: one group, the pods' keys, the script in args") {
  ExportRequest request;
  request.engine = Engine::sglang;
  request.hosts = {"fe80::1", "fe80::2"};
  const ExportResult result = export_plan(export_test::plan_named("deepseek-v3-dp16-2node-h200.json"), request);
  const std::string manifest = file_named(result, "lws.yaml").contents;
  const std::vector<YAML::Node> documents = YAML::LoadAll(manifest);
  REQUIRE(documents.size() == 1);
  const YAML::Node group = documents[0]["spec"]["leaderWorkerTemplate"];
  CHECK(group["size"].as<int>() == 2);
  const YAML::Node worker = group["workerTemplate"]["spec"]["containers"][0];
  // sglang on main: the published image tagged latest.
  CHECK(worker["image"].as<std::string>() == "lmsysorg/sglang:latest");
  const std::string script = worker["args"][0].as<std::string>();
  CHECK(script.starts_with("exec python3 -m sglang.launch_server \\\n"));
  CHECK(contains(script, "--dist-init-addr \"${LWS_LEADER_ADDRESS}:5000\""));
  CHECK(shell_syntax_ok(script));
  // The scripts name the head by its address, in brackets beside the port ([sglang-dist-init-ipv6]).
  CHECK(contains(file_named(result, "aggregated-0-node1.sh").contents, "--dist-init-addr '[fe80::1]:5000'"));
}

TEST_CASE("hosts: names, IPv4 and IPv6 told apart; an IPv6 address beside a port is bracketed") {
  CHECK(host_kind("node0") == HostKind::name);
  CHECK(host_kind("gpu-1.cluster.local") == HostKind::name);
  CHECK(host_kind("10.0.0.1") == HostKind::ipv4);
  CHECK(host_kind("fe80::1") == HostKind::ipv6);
  CHECK(host_kind("::ffff:10.0.0.1") == HostKind::ipv6);
  for (const char* bad : {"", "999.1.1.1", "10.0.0.01", "-x", "a..b", "fe80::1%eth0", "[fe80::1]", "a_b", "x-"})
    CHECK(host_kind(bad) == HostKind::invalid);
  CHECK(host_and_port("fe80::1", 5000) == "[fe80::1]:5000");
  CHECK(host_and_port("10.0.0.1", 5000) == "10.0.0.1:5000");
}
