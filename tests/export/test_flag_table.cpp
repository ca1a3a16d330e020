// The flag tables (lib/export/flags/*.json) against the scripts export writes: for every release each table
// lists, every script the test plans produce is read back from its text and checked, flag by flag, against
// the table file as stored in the repository (by this test's own reading of it) and against the table's
// constraints (check_command). Then the rows of issue 36, each worked out from the engine source cited in
// the table.
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "export/exporter.hpp"
#include "export/flag_table.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::contains;
using export_test::plan_document;
using export_test::plan_from;

namespace {

// --- Reading a script back: `export NAME=VALUE` lines, then `exec PROGRAM... \` with one flag per line.

std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t index = 0; index < line.size(); ++index) {
    const char character = line[index];
    if (character == '\'') {
      const auto close = line.find('\'', index + 1);
      word += line.substr(index + 1, close - index - 1);
      index = close;
      in_word = true;
    } else if (character == ' ' || character == '\\') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += character;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

LaunchCommand read_script(const std::string& text) {
  LaunchCommand command;
  std::istringstream lines(text);
  std::string line;
  bool in_exec = false;
  while (std::getline(lines, line)) {
    if (line.starts_with("export ")) {
      const auto words = shell_words(line.substr(7));
      const auto equals = words.front().find('=');
      command.set_environment(words.front().substr(0, equals), words.front().substr(equals + 1));
      continue;
    }
    if (line.starts_with("exec ")) {
      in_exec = true;
      command.program = shell_words(line.substr(5));
      continue;
    }
    if (!in_exec) continue;
    auto words = shell_words(line);
    if (words.empty()) continue;
    command.add(words.front(), std::vector<std::string>(words.begin() + 1, words.end()));
  }
  return command;
}

// --- Reading a TensorRT-LLM options file back: two-space block mappings whose values are JSON scalars or lists.

nlohmann::json read_options_yaml(const std::string& text) {
  nlohmann::json root = nlohmann::json::object();
  std::vector<nlohmann::json*> open{&root};
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t indent = line.find_first_not_of(' ');
    open.resize(indent / 2 + 1);
    const std::size_t colon = line.find(':', indent);
    nlohmann::json& parent = *open.back();
    const std::string key = line.substr(indent, colon - indent);
    if (colon + 1 == line.size()) {
      parent[key] = nlohmann::json::object();
      open.push_back(&parent[key]);
    } else {
      parent[key] = nlohmann::json::parse(line.substr(colon + 2));
    }
  }
  return root;
}

// Every key of `options` as its dotted path, parents first.
void key_paths(const nlohmann::json& options, const std::string& prefix, std::vector<std::string>& paths) {
  for (const auto& item : options.items()) {
    const std::string path = prefix.empty() ? item.key() : prefix + "." + item.key();
    paths.push_back(path);
    if (item.value().is_object()) key_paths(item.value(), path, paths);
  }
}

// --- The table files as stored, read by this test alone.

// A named string, not a temporary, so that the reference table_document returns is plainly not to it.
const std::string kTrtllmTable = "trtllm";

const nlohmann::json& table_document(const std::string& name) {
  static std::map<std::string, nlohmann::json> documents;
  if (!documents.contains(name)) {
    std::ifstream stream(export_test::data_path("../../lib/export/flags/" + name + ".json"));
    documents[name] = nlohmann::json::parse(stream);
  }
  return documents.at(name);
}

EngineVersion version_text(const std::string& text) { return parse_engine_version(text, "test"); }

bool covers(const nlohmann::json& span, const EngineVersion& version) {
  const std::string last = span.at("last");
  const bool below_last = last == "main" || (last == "latest-release" ? !version.main : version <= version_text(last));
  return version >= version_text(span.at("first")) && below_last;
}

const nlohmann::json* entry_named(const nlohmann::json& entries, const std::string& name) {
  for (const auto& entry : entries) {
    if (entry.at("name") == name) return &entry;
  }
  return nullptr;
}

// Whether the stored table lists `name` for `version`: a router or proxy program's own section, the
// engine's entries, or for vllm-ascend upstream vLLM's entries at the release of the same number.
bool stored_table_lists(Engine engine, const EngineVersion& version, const LaunchCommand& command,
                        const std::string& name) {
  std::vector<std::string> names = {engine == Engine::sglang ? "sglang" : "vllm"};
  if (engine == Engine::vllm_ascend) names = {"vllm_ascend", "vllm"};
  if (engine == Engine::trtllm) names = {"trtllm"};
  for (const std::string& table : names) {
    const nlohmann::json& document = table_document(table);
    const EngineVersion at = table == "vllm" ? without_suffix(version) : version;
    for (const auto& section : document.value("programs", nlohmann::json::array())) {
      if (std::find(command.program.begin(), command.program.end(), section.at("match").get<std::string>()) ==
          command.program.end())
        continue;
      // A flag whose value changed form has one entry per form, each with its own releases.
      const auto& entries = section.at("entries");
      return std::any_of(entries.begin(), entries.end(), [&](const auto& entry) {
        const auto& spans = entry.at("spans");
        return entry.at("name") == name &&
               std::any_of(spans.begin(), spans.end(), [&](const auto& span) { return covers(span, version); });
      });
    }
    if (const auto* entry = entry_named(document.at("entries"), name)) {
      const auto& spans = entry->at("spans");
      return std::any_of(spans.begin(), spans.end(), [&](const auto& span) { return covers(span, at); });
    }
  }
  return false;
}

struct Variant {
  std::string label;
  nlohmann::json document;
  std::vector<Engine> engines;
};

// The test plans, and edits that reach the Ascend SGLang path and two prefill instances on one node.
std::vector<Variant> variants() {
  nlohmann::json ascend_sglang = plan_document("qwen3-235b-pd-otp4-910b.json");
  ascend_sglang["plans"][0]["roles"][1]["layout"]["otp"] = 1;
  nlohmann::json shared_prefill = plan_document("qwen3-235b-pd-otp4-910b.json");
  nlohmann::json attention_dp = plan_document("deepseek-v3-tp8-h200.json");
  nlohmann::json& role = attention_dp["plans"][0]["roles"][0];
  for (const auto& [key, value] : std::map<std::string, int>{
           {"tp", 1}, {"dp", 8}, {"ep", 8}, {"dense_tp", 1}, {"lm_head_tp", 1}, {"fused_shared", 0}})
    role["layout"][key] = value;
  role["kv_cache_dtype"] = "fp8_e4m3";
  role["max_context"] = 16384;
  role["speculative"] = {{"method", "mtp"}, {"draft_tokens", 2}};
  role["graph_batch_sizes"] = {1, 2, 4, 8};
  role["cuda_graph_max_batch"] = 8;
  nlohmann::json one_node_pd = plan_document("deepseek-v3-pd-h100.json");
  for (nlohmann::json& pd_role : one_node_pd["plans"][0]["roles"]) {
    pd_role["nodes"] = 1;
    pd_role["gpus"] = 8;
    for (const auto& [key, value] : std::map<std::string, int>{
             {"tp", 1}, {"dp", 8}, {"ep", 8}, {"redundant", 0}, {"nodes", 1}, {"dense_tp", 1}, {"lm_head_tp", 1}})
      pd_role["layout"][key] = value;
    pd_role["dispatch"] = "standard";
    pd_role["two_batch_overlap"] = false;
    pd_role["max_running_requests"] = 8 * pd_role["max_batch_per_dp_rank"].get<int>();
  }
  nlohmann::json& prefill = shared_prefill["plans"][0]["roles"][0];
  prefill["gpus"] = 8;
  prefill["instances"] = 2;
  prefill["layout"]["dp"] = 8;
  prefill["layout"]["ep"] = 8;
  return {{"deepseek-v3-pd-h100",
           plan_document("deepseek-v3-pd-h100.json"),
           {Engine::sglang, Engine::vllm, Engine::trtllm}},
          {"deepseek-v3-tp8-h200",
           plan_document("deepseek-v3-tp8-h200.json"),
           {Engine::sglang, Engine::vllm, Engine::trtllm}},
          {"deepseek-v3 attention DP8 with MTP", attention_dp, {Engine::trtllm}},
          {"deepseek-v3-dp16-2node-h200", plan_document("deepseek-v3-dp16-2node-h200.json"), {Engine::trtllm}},
          {"deepseek-v3 PD, one node a role", one_node_pd, {Engine::trtllm}},
          {"qwen3-235b-pd-otp4-910b", plan_document("qwen3-235b-pd-otp4-910b.json"), {Engine::vllm_ascend}},
          {"qwen3-235b-rl-otp4-910b", plan_document("qwen3-235b-rl-otp4-910b.json"), {Engine::vllm_ascend}},
          {"qwen3 PD without OTP", ascend_sglang, {Engine::sglang, Engine::vllm_ascend}},
          {"qwen3 PD, two prefill instances on a node", shared_prefill, {Engine::sglang, Engine::vllm_ascend}}};
}

struct Tally {
  int exported = 0;
  int refused = 0;
  std::map<std::string, std::vector<EngineVersion>> exported_at;  // plans[0] of each variant
};

const OutputFile* file_in(const ExportResult& result, const std::string& name) {
  for (const OutputFile& file : result.files) {
    if (file.name == name) return &file;
  }
  return nullptr;
}

// The stored entry of a TensorRT-LLM file flag: the router's in its program section, a server's in the entries.
const nlohmann::json* stored_file_flag(const LaunchCommand& command, const std::string& flag) {
  const nlohmann::json& document = table_document(kTrtllmTable);
  if (std::find(command.program.begin(), command.program.end(), "disaggregated") == command.program.end())
    return entry_named(document.at("entries"), flag);
  return entry_named(document.at("programs")[0].at("entries"), flag);
}

// A TensorRT-LLM script names its options file (the router its configuration file): the command the table
// judges carries the file's keys, and the stored table must list every key for the release.
void read_options_back(const ExportRequest& request, const ExportResult& result, LaunchCommand& command) {
  for (Argument& argument : command.arguments) {
    if (argument.flag != "--extra_llm_api_options" && argument.flag != "-c") continue;
    const OutputFile* file = file_in(result, argument.values.front());
    REQUIRE_MESSAGE(file, argument.values.front());
    const nlohmann::json options = read_options_yaml(file->contents);
    argument.values = {options.dump()};
    std::vector<std::string> paths;
    key_paths(options, "", paths);
    const auto* entry = stored_file_flag(command, argument.flag);
    REQUIRE(entry);
    for (const std::string& path : paths) {
      const auto* key = entry_named(entry->at("keys"), path);
      CHECK_MESSAGE((key && covers(key->at("spans")[0], request.version)), path);
    }
  }
}

// The launchers before the engine's program ("mpirun -H ... -n N trtllm-llmapi-launch trtllm-serve"): each
// program and each of its flags must be in the stored table's "launchers" for the release.
void check_stored_launchers(const ExportRequest& request, const LaunchCommand& command) {
  const nlohmann::json& document = table_document(kTrtllmTable);
  const nlohmann::json* launcher = nullptr;
  for (std::size_t index = 0; index < command.program.size(); ++index) {
    const std::string& token = command.program[index];
    const nlohmann::json* entry = entry_named(document.at("launchers"), token);
    if (entry) {
      launcher = entry;
    } else if (!launcher || !token.starts_with('-')) {
      return;
    } else {
      entry = entry_named(launcher->at("flags"), token);
      ++index;  // the flag's value
    }
    REQUIRE_MESSAGE(entry, token);
    CHECK_MESSAGE(covers(entry->at("spans")[0], request.version), token);
  }
}

void check_scripts(const PlanFile& plan, const ExportRequest& request, const ExportResult& result) {
  for (const OutputFile& file : result.files) {
    if (!file.name.ends_with(".sh")) continue;
    LaunchCommand command = read_script(file.contents);
    if (request.engine == Engine::trtllm) read_options_back(request, result, command);
    if (request.engine == Engine::trtllm) check_stored_launchers(request, command);
    const NodeLaunch* node = nullptr;
    for (const NodeLaunch& candidate : result.nodes) {
      if (candidate.script_name() == file.name) node = &candidate;
    }
    const PlanFacts facts = node ? plan_facts(plan, *node->role) : PlanFacts{};
    INFO(engine_name(request.engine) << " " << request.version.text() << " " << file.name);
    for (const TableProblem& problem : check_command(request.engine, request.version, command, facts))
      CHECK_MESSAGE(false, problem.subject << ": " << problem.reason);
    // Not a structured binding: clang 14 cannot capture one in the lambda CHECK_MESSAGE expands to.
    for (const auto& variable : command.environment) {
      const std::string& name = variable.first;
      CHECK_MESSAGE(stored_table_lists(request.engine, request.version, command, name), name);
    }
    for (const Argument& argument : command.arguments)
      CHECK_MESSAGE(stored_table_lists(request.engine, request.version, command, argument.flag), argument.flag);
  }
}

Tally run_conformance(Engine engine) {
  Tally tally;
  for (const Variant& variant : variants()) {
    if (std::find(variant.engines.begin(), variant.engines.end(), engine) == variant.engines.end()) continue;
    const PlanFile plan = plan_from(variant.document);
    for (const EngineVersion& version : table_versions(engine)) {
      for (std::size_t index = 0; index < plan.plans.size(); ++index) {
        ExportRequest request;
        request.engine = engine;
        request.version = version;
        request.plan_index = index;
        request.model_path = "org/model";
        request.network_interface = "eth0";  // vllm-ascend PD: the sockets' NIC
        request.name_nearest_release = false;
        try {
          check_scripts(plan, request, export_plan(plan, request));
          ++tally.exported;
          if (index == 0) tally.exported_at[variant.label].push_back(version);
        } catch (const moeplan::InputError&) {
          ++tally.refused;
        }
      }
    }
  }
  return tally;
}

}  // namespace

// The releases from `first` on, as the table lists them: those a plan needing nothing newer exports at.
std::vector<EngineVersion> listed_from(Engine engine, const EngineVersion& first) {
  std::vector<EngineVersion> versions;
  for (const EngineVersion& version : table_versions(engine)) {
    if (version >= first) versions.push_back(version);
  }
  return versions;
}

TEST_CASE("every script of every listed release passes its flag table") {
  const Tally sglang = run_conformance(Engine::sglang);
  const Tally vllm = run_conformance(Engine::vllm);
  const Tally ascend = run_conformance(Engine::vllm_ascend);
  const Tally trtllm = run_conformance(Engine::trtllm);
  for (const Tally* tally : {&sglang, &vllm, &ascend, &trtllm}) {
    CHECK(tally->exported > 0);
    CHECK(tally->refused > 0);
  }
  // [doc-003]'s PD plan on SGLang needs --enable-two-batch-overlap (0.4.7, server_args.py@4f723edd3:1210); every
  // other flag it takes is older, and DeepEP keeps it clear of every constraint.
  CHECK(sglang.exported_at.at("deepseek-v3-pd-h100") == listed_from(Engine::sglang, release(0, 4, 7)));
  // On vLLM it needs --enable-dbo with DeepEP high throughput for prefill: 0.11.1 (0.11.0 asserted low latency).
  CHECK(vllm.exported_at.at("deepseek-v3-pd-h100") == listed_from(Engine::vllm, release(0, 11, 1)));
  // [doc-004]'s decode on vllm-ascend needs the Mooncake connector (0.10.1rc1) and an O-projection TP key
  // (top level from 0.10.2rc1): every tag from 0.10.2rc1 exports it.
  CHECK(ascend.exported_at.at("qwen3-235b-pd-otp4-910b") ==
        listed_from(Engine::vllm_ascend, release_candidate(0, 10, 2, 1)));
  // trtllm.json gives every flag and key it lists the same span, 1.0.0rc3 to 1.2.0rc6: the attention-DP plan
  // and the two-node plan (with mpirun and the wrapper, listed over the same span) export at each listed
  // release; the PD plan (DeepEP, redundant experts) and the tp8 plan's fused shared expert at none.
  CHECK(trtllm.exported_at.at("deepseek-v3 attention DP8 with MTP") ==
        listed_from(Engine::trtllm, release_candidate(1, 0, 0, 3)));
  CHECK(trtllm.exported_at.at("deepseek-v3-dp16-2node-h200") ==
        listed_from(Engine::trtllm, release_candidate(1, 0, 0, 3)));
  CHECK_FALSE(trtllm.exported_at.contains("deepseek-v3-pd-h100"));
  // The one-node PD plan needs the cache transceiver, listed from 1.2.0rc2.
  CHECK(trtllm.exported_at.at("deepseek-v3 PD, one node a role") ==
        listed_from(Engine::trtllm, release_candidate(1, 2, 0, 2)));
  CHECK_FALSE(trtllm.exported_at.contains("deepseek-v3-tp8-h200"));
}

TEST_CASE("the compiled table is the stored file; versions ascend, main last") {
  for (const Engine engine : {Engine::sglang, Engine::vllm, Engine::vllm_ascend}) {
    const std::vector<EngineVersion> versions = table_versions(engine);
    CHECK(std::is_sorted(versions.begin(), versions.end()));
    CHECK(versions.back().main);
  }
  // sglang.json lists 0.4.5 first: the version.py bump commit 57f99608f.
  CHECK(table_versions(Engine::sglang).front() == release(0, 4, 5));
  CHECK(table_versions(Engine::vllm_ascend).front() == release(0, 9, 1));
  // trtllm.json lists the releases the measured runs name, 1.0.0rc3 to 1.2.0rc6, and not main.
  const std::vector<EngineVersion> trtllm = table_versions(Engine::trtllm);
  CHECK(std::is_sorted(trtllm.begin(), trtllm.end()));
  CHECK(trtllm.front() == release_candidate(1, 0, 0, 3));
  CHECK(trtllm.back() == release_candidate(1, 2, 0, 6));
}

TEST_CASE("an options file reads back to the keys it was written from") {
  const std::string text = "cuda_graph_config:\n  batch_sizes: [1, 2]\nenable_attention_dp: true\n";
  const nlohmann::json expected = {{"cuda_graph_config", {{"batch_sizes", {1, 2}}}}, {"enable_attention_dp", true}};
  CHECK(read_options_yaml(text) == expected);
}

TEST_CASE("reading a script back gives the command's tokens") {
  LaunchCommand command;
  command.program = {"vllm", "serve", "org/model"};
  command.set_environment("VLLM_NIXL_SIDE_CHANNEL_HOST", "node1");
  command.add("--headless");
  command.add("--kv-transfer-config", R"({"kv_connector":"NixlConnector","kv_role":"kv_consumer"})");
  command.add("--cuda-graph-bs", std::vector<std::string>{"1", "2"});
  const LaunchCommand back = read_script(render_script(command, "test"));
  CHECK(back.program == command.program);
  CHECK(back.environment == command.environment);
  CHECK(back.arguments.size() == 3);
  CHECK(back.value_of("--kv-transfer-config") == R"({"kv_connector":"NixlConnector","kv_role":"kv_consumer"})");
  CHECK(back.value_of("--cuda-graph-bs") == "1 2");
  CHECK(back.value_of("--headless") == "");
}

TEST_CASE("a launcher and its flags are judged like the engine's own: mpirun -H takes host:slots") {
  LaunchCommand command;
  command.program = {"mpirun",       "-H",       "node0:8,node1:8", "-n", "16", "trtllm-llmapi-launch",
                     "trtllm-serve", "org/model"};
  const EngineVersion listed = release_candidate(1, 2, 0, 6);
  CHECK(check_command(Engine::trtllm, listed, command, PlanFacts{}).empty());
  const auto subjects = [&](const EngineVersion& version) {
    std::vector<std::string> names;
    for (const TableProblem& problem : check_command(Engine::trtllm, version, command, PlanFacts{}))
      names.push_back(problem.subject);
    return names;
  };
  // Hosts without their slots are not Open MPI's host:slots list.
  command.program[2] = "node0,node1";
  CHECK(subjects(listed) == std::vector<std::string>{"mpirun -H"});
  // A flag the table does not list for mpirun.
  command.program = {"mpirun", "-x", "NAME=1", "-n", "16", "trtllm-llmapi-launch", "trtllm-serve", "org/model"};
  CHECK(subjects(listed) == std::vector<std::string>{"mpirun -x"});
  // 0.21.0 is older than every span (1.0.0rc3 on): the launcher, both flags and the wrapper are refused.
  command.program = {"mpirun",       "-H",       "node0:8,node1:8", "-n", "16", "trtllm-llmapi-launch",
                     "trtllm-serve", "org/model"};
  CHECK(subjects(release(0, 21, 0)) ==
        std::vector<std::string>{"mpirun", "mpirun -H", "mpirun -n", "trtllm-llmapi-launch"});
}
