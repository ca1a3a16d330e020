// Generated scripts are safe by construction: every value that reaches a script, its comment line or
// deployment.json is either refused where it enters or kept inside its own token. Each hostile value
// is put in every field an export carries; each script is then run by /bin/sh with `exec` turned into
// a printer of its arguments, and must neither run anything (no MARK file appears) nor split, join or
// change a token.
#include <unistd.h>

#include <yaml-cpp/yaml.h>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "export/exporter.hpp"
#include "export/script_values.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::plan_document;
using export_test::plan_from;
using export_test::refusal_of;

namespace {

// Each would run `touch MARK` if it left its token or its comment line.
const std::vector<std::string> kHostile = {
    "a\ntouch MARK #",
    "a\rtouch MARK",
    "x'; touch MARK; '",
    "x\"; touch MARK; \"",
    "$(touch MARK)",
    "`touch MARK`",
    "a; touch MARK",
    "a && touch MARK",
    "a | touch MARK",
    "a\\",
    "--x=$(touch MARK)",
    "*",
    "a b",
};

std::filesystem::path scratch_directory() {
  std::string name = (std::filesystem::temp_directory_path() / "moeplan-script-safety-XXXXXX").string();
  REQUIRE(mkdtemp(name.data()) != nullptr);
  return name;
}

// The tokens each of `scripts` passes to exec, as sh sees them: all scripts sourced by one shell, with
// `exec` turned into printf of each argument and a NUL, and a lone \x01 token after each script.
std::vector<std::vector<std::string>> executed_tokens(const std::vector<std::string>& scripts,
                                                      const std::filesystem::path& directory) {
  std::string driver;
  for (std::size_t index = 0; index < scripts.size(); ++index) {
    std::string printing = scripts[index];
    const std::size_t exec = printing.find("\nexec ");
    REQUIRE(exec != std::string::npos);
    printing.replace(exec, 6, "\nprintf '%s\\0' ");
    const std::string name = "script" + std::to_string(index) + ".sh";
    std::ofstream(directory / name) << printing;
    driver += ". ./" + name + "\nprintf '\\001\\0'\n";
  }
  std::ofstream(directory / "driver.sh") << driver;
  const std::string command = "cd '" + directory.string() + "' && sh ./driver.sh > tokens";
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream stream(directory / "tokens", std::ios::binary);
  std::vector<std::vector<std::string>> runs(1);
  for (std::string token; std::getline(stream, token, '\0');) {
    if (token == "\x01") {
      runs.emplace_back();
    } else {
      runs.back().push_back(token);
    }
  }
  runs.pop_back();  // after the last script's \x01
  return runs;
}

struct Exported {
  std::vector<std::vector<std::string>> scripts;    // the tokens of every script, in order
  std::map<std::string, std::string> option_files;  // TensorRT-LLM's YAML files by name
  nlohmann::json deployment;
};

// The engine, its release, and a plan it exports (plans[plan_index] of tests/data/plans/PLAN).
struct EngineCase {
  Engine engine;
  std::string plan;
  std::string version = "main";
  std::size_t plan_index = 0;
};

// trtllm lists no main and refuses fused shared experts and the PD plan's DeepEP: the TP8 plan without
// fusion (plans[1]) and the two-node plan (mpirun on the first node) at the newest listed release.
const std::vector<EngineCase> kEngineCases = {{Engine::sglang, "deepseek-v3-pd-h100.json"},
                                              {Engine::vllm, "deepseek-v3-pd-h100.json"},
                                              {Engine::vllm_ascend, "qwen3-235b-pd-otp4-910b.json"},
                                              {Engine::trtllm, "deepseek-v3-tp8-h200.json", "1.2.0rc6", 1},
                                              {Engine::trtllm, "deepseek-v3-dp16-2node-h200.json", "1.2.0rc6", 0}};

// Every YAML file reads back (yaml-cpp) as a mapping: a value that broke one would not.
void check_option_files(const std::map<std::string, std::string>& files) {
  // Not a structured binding: CAPTURE takes its argument in a lambda, which clang 14 refuses for one.
  for (const auto& file : files) {
    const std::string& name = file.first;
    CAPTURE(name);
    YAML::Node document;
    CHECK_NOTHROW(document = YAML::Load(file.second));
    CHECK(document.IsMap());
  }
}

// Exports `document` for `engine` with `model_path` and returns what every script executes.
Exported exported(const nlohmann::json& document, const EngineCase& engine, const std::string& model_path,
                  const std::filesystem::path& directory) {
  ExportRequest request;
  request.engine = engine.engine;
  request.version = parse_engine_version(engine.version, "test");
  request.plan_index = engine.plan_index;
  request.model_path = model_path;
  request.network_interface = "eth0";  // vllm-ascend PD: the sockets' NIC
  const ExportResult result = export_plan(plan_from(document), request);
  Exported run;
  std::vector<std::string> scripts;
  for (const OutputFile& file : result.files) {
    if (file.executable) scripts.push_back(file.contents);
    if (file.name.ends_with(".yaml") && file.name != "lws.yaml") run.option_files[file.name] = file.contents;
    if (file.name == "deployment.json") run.deployment = nlohmann::json::parse(file.contents);
  }
  run.scripts = executed_tokens(scripts, directory);
  check_option_files(run.option_files);
  return run;
}

// Every token of `hostile`'s export equals the benign export's, with `benign` replaced by `hostile`; the
// option files, which no plan name or model path reaches, are the benign export's byte for byte.
void check_same_tokens(const Exported& hostile, const Exported& benign, const std::string& benign_value,
                       const std::string& hostile_value) {
  REQUIRE(hostile.scripts.size() == benign.scripts.size());
  for (std::size_t script = 0; script < benign.scripts.size(); ++script) {
    std::vector<std::string> expected = benign.scripts[script];
    for (std::string& token : expected) {
      if (token == benign_value) token = hostile_value;
    }
    CHECK(hostile.scripts[script] == expected);
  }
  CHECK(hostile.option_files == benign.option_files);
}

}  // namespace

// A value with a line break or a carriage return: the plan reader refuses it as a model name.
bool has_line_break(const std::string& value) { return value.find_first_of("\n\r") != std::string::npos; }

// A value the engine would read as a flag, or that holds a line break, cannot be a model path.
bool usable_as_model_path(const std::string& value) { return value.front() != '-' && !has_line_break(value); }

TEST_CASE("script safety: a hostile model name stays in its comment line and its JSON string") {
  const std::filesystem::path directory = scratch_directory();
  for (const EngineCase& engine : kEngineCases) {
    nlohmann::json document = plan_document(engine.plan);
    document["model"]["name"] = "benign";
    const Exported benign = exported(document, engine, "some/model", directory);
    for (const std::string& value : kHostile) {
      CAPTURE(value);
      document["model"]["name"] = value;
      document["scenario"]["name"] = value;
      const std::string model_name = has_line_break(value) ? "benign" : value;
      if (has_line_break(value)) {  // refused where the plan is read; the scenario name still reaches the export
        CHECK(refusal_of([&] { exported(document, engine, "some/model", directory); }).key == "model.name");
        document["model"]["name"] = model_name;
      }
      const Exported hostile = exported(document, engine, "some/model", directory);
      check_same_tokens(hostile, benign, "benign", model_name);
      CHECK(hostile.deployment["model"]["name"] == model_name);
      CHECK(hostile.deployment["scenario"]["name"] == value);
      CHECK_FALSE(std::filesystem::exists(directory / "MARK"));
    }
  }
  std::filesystem::remove_all(directory);
}

TEST_CASE("script safety: a hostile model path, given or from the plan, is one token or refused") {
  const std::filesystem::path directory = scratch_directory();
  for (const EngineCase& engine : kEngineCases) {
    nlohmann::json document = plan_document(engine.plan);
    document["model"].erase("hf_id");  // without one, --model-path is the engine's model path
    document["model"]["name"] = "benign";
    const Exported benign = exported(document, engine, "benign", directory);
    for (const std::string& value : kHostile) {
      CAPTURE(value);
      if (!usable_as_model_path(value)) {
        document["model"]["name"] = "benign";
        CHECK(refusal_of([&] { exported(document, engine, value, directory); }).key == "--model-path");
        // Refused by the plan reader (a line break) or as the engine's model path (a leading '-').
        document["model"]["name"] = value;
        CHECK(refusal_of([&] { exported(document, engine, "", directory); }).key == "model.name");
        continue;
      }
      document["model"]["name"] = value;
      check_same_tokens(exported(document, engine, value, directory), benign, "benign", value);
      // A plan without hf_id needs --model-path: its model name is never the engine's model path.
      CHECK(refusal_of([&] { exported(document, engine, "", directory); }).key == "--model-path");
      CHECK_FALSE(std::filesystem::exists(directory / "MARK"));
    }
  }
  std::filesystem::remove_all(directory);
}

TEST_CASE("script safety: hostile hosts, KV connectors, plan and placement paths are refused, naming the option") {
  const PlanFile plan = plan_from(plan_document("deepseek-v3-pd-h100.json"));
  for (const std::string& value : kHostile) {
    CAPTURE(value);
    ExportRequest hosts;
    hosts.engine = Engine::vllm;
    hosts.hosts = std::vector<std::string>(8, value);
    CHECK(refusal_of([&] { export_plan(plan, hosts); }).key == "--hosts");
    ExportRequest spread;  // the hosts mpirun's -H names
    spread.engine = Engine::trtllm;
    spread.version = release_candidate(1, 2, 0, 6);
    spread.hosts = {"node0", value};
    CHECK(refusal_of([&] { export_plan(plan_from(plan_document("deepseek-v3-dp16-2node-h200.json")), spread); }).key ==
          "--hosts");
    ExportRequest connector;
    connector.engine = Engine::vllm;
    connector.kv_connector = value;
    CHECK(refusal_of([&] { export_plan(plan, connector); }).key == "--kv-connector");
  }
  ExportRequest placement;
  placement.placements = {{std::nullopt, "a\nb.json"}};
  CHECK(refusal_of([&] { export_plan(plan, placement); }).key == "--placement");
  PlanFile named = plan;
  named.file = "plan\n.json";
  CHECK(refusal_of([&] { export_plan(named, ExportRequest{}); }).key == "--plan");
  named.file = "plan\xe9.json";  // Latin-1: not UTF-8, so deployment.json could not record it
  CHECK(refusal_of([&] { export_plan(named, ExportRequest{}); }).key == "--plan");
}

TEST_CASE("script safety: a comment stays a comment whatever it is given") {
  // Worked by hand: "\n" is byte 0x0a, "\x1b" 0x1b, DEL 0x7f; printable text is kept.
  CHECK(comment_text("a\nb") == "a\\x0ab");
  CHECK(comment_text("\x1b[2J\x7f") == "\\x1b[2J\\x7f");
  CHECK(comment_text("plain $(text) `kept`") == "plain $(text) `kept`");
  // A line break in the comment starts another comment line, never a command.
  const std::string script = render_script(LaunchCommand{{}, {"prog"}, {}, false, {}}, "x\ntouch MARK\r");
  CHECK(script.find("\ntouch") == std::string::npos);
  CHECK(script.rfind("#!/bin/sh\n# x\n# touch MARK\\x0d\n", 0) == 0);
}
