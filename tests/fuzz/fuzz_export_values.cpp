// Hostile strings in every exported field, read back by each output language's reader. The first byte
// picks the field (the model's name, --model-path, a host, --image, the speculative draft model, a YAML,
// shell or CSV value on its own), the rest is the value. An export either refuses it (InputError) or
// writes files whose YAML reads back with the groups, keys and pod script the writer meant, whose
// deployment.json parses, and where the value comes back whole.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "export/exporter.hpp"
#include "export/launch_command.hpp"
#include "export/plan_reader.hpp"
#include "export/yaml_text.hpp"
#include "io/csv_text.hpp"
#include "io/input_error.hpp"
#include "io/utf8_text.hpp"

namespace {

using namespace moeplan;
using namespace moeplan::exporting;

void require(bool condition) {
  if (!condition) std::abort();
}

// POSIX sh's reading of one word made of single-quoted runs and characters shell_quote leaves bare.
std::string shell_word(const std::string& word) {
  std::string text;
  bool quoted = false;
  for (std::size_t index = 0; index < word.size(); ++index) {
    if (word[index] == '\'') {
      quoted = !quoted;
    } else if (!quoted && word[index] == '\\') {
      text += word[++index];
    } else {
      require(quoted || std::string_view(" \t\n;&|<>()$`\"*?[#~").find(word[index]) == std::string_view::npos);
      text += word[index];
    }
  }
  require(!quoted);
  return text;
}

// RFC 4180's reading of one field.
std::string csv_read(const std::string& field) {
  if (field.empty() || field.front() != '"') {
    require(field.find_first_of(",\"\r\n") == std::string::npos);
    return field;
  }
  std::string text;
  for (std::size_t index = 1; index + 1 < field.size(); ++index) {
    if (field[index] == '"') require(field[++index] == '"');
    text += field[index];
  }
  require(field.size() >= 2 && field.back() == '"');
  return text;
}

void check_writers(const std::string& value) {
  require(shell_word(shell_quote(value)) == value);
  require(csv_read(csv_field(value)) == value);
  const std::string comment = comment_text(value);
  require(comment.find_first_of("\r\n") == std::string::npos && single_line_text(comment));
  if (!valid_utf8(value) || value.find('\0') != std::string::npos) return;
  require(YAML::Load("key: " + yaml_quoted(value))["key"].as<std::string>() == value);
  require(YAML::Load("key: " + yaml_block(value, 2))["key"].as<std::string>() == value);
  require(YAML::Load(yaml_key(value) + ": 1")[value].as<int>() == 1);
}

const nlohmann::json& benign_plan() {
  static const nlohmann::json plan = [] {
    std::ifstream stream(std::string(MOEPLAN_SOURCE_DIR) + "/tests/data/plans/deepseek-v3-dp16-2node-h200.json");
    return nlohmann::json::parse(stream);
  }();
  return plan;
}

// Every LeaderWorkerSet of lws.yaml: its container holds the keys the writer writes, no more.
void check_manifest(const std::string& manifest) {
  const std::set<std::string> keys = {"name", "image", "command", "args", "env", "resources", "workingDir"};
  const std::vector<YAML::Node> documents = YAML::LoadAll(manifest);
  require(documents.size() == 1);
  const YAML::Node group = documents.front()["spec"]["leaderWorkerTemplate"];
  for (const char* pod : {"leaderTemplate", "workerTemplate"}) {
    const YAML::Node containers = group[pod]["spec"]["containers"];
    require(containers.size() == 1);
    for (const auto& entry : containers[0]) require(keys.count(entry.first.as<std::string>()) == 1);
    require(containers[0]["args"][0].as<std::string>().starts_with("exec "));
  }
}

void check_export(std::uint8_t field, const std::string& value) {
  nlohmann::json document = benign_plan();
  ExportRequest request;
  if (field == 0) document["model"]["name"] = value;
  if (field == 0) document["model"].erase("hf_id");
  if (field == 1) request.model_path = value;
  if (field == 2) request.hosts = {"node0", value};
  if (field == 3) request.image = value;
  if (field == 4)
    document["plans"][0]["roles"][0]["speculative"] = {
        {"method", "eagle"}, {"draft_tokens", 3}, {"draft_model", value}};
  ExportResult result;
  try {
    result = export_plan(parse_plan(document, "plan.json"), request);
  } catch (const InputError&) {
    return;
  } catch (const nlohmann::json::exception&) {  // a value JSON cannot hold (not UTF-8)
    return;
  }
  for (const OutputFile& file : result.files) {
    if (file.name == "lws.yaml") check_manifest(file.contents);
    if (file.name.ends_with(".json")) require(!nlohmann::json::parse(file.contents).is_discarded());
    if (file.name.ends_with(".sh")) require(file.contents.find("\n#!") == std::string::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string value(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::uint8_t field = data[0] % 6;
  if (field == 5) {
    check_writers(value);
  } else {
    check_writers(value);
    check_export(field, value);
  }
  return 0;
}
