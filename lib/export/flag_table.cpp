#include "export/flag_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "export/embedded_flag_tables.hpp"

namespace moeplan::exporting {

namespace {

using Json = nlohmann::json;

// An engine's table and, for vllm-ascend, the upstream table it extends.
struct Table {
  Json document;
  const Table* base = nullptr;
};

const char* table_name(Engine engine) {
  switch (engine) {
    case Engine::sglang: return "sglang";
    case Engine::vllm: return "vllm";
    case Engine::vllm_ascend: return "vllm_ascend";
    case Engine::trtllm: return "trtllm";
  }
  return "";
}

const Table& table_of(Engine engine) {
  static const std::map<Engine, Table> tables = [] {
    std::map<Engine, Table> parsed;
    for (const Engine engine : {Engine::sglang, Engine::vllm, Engine::vllm_ascend, Engine::trtllm})
      parsed[engine].document = Json::parse(embedded_flag_table(table_name(engine)));
    parsed[Engine::vllm_ascend].base = &parsed[Engine::vllm];
    return parsed;
  }();
  return tables.at(engine);
}

EngineVersion version_of(const std::string& text) { return parse_engine_version(text, "flag table"); }

// The upstream release a vllm-ascend release runs on: the same number without rc (main on main).
EngineVersion base_version(const EngineVersion& version) { return without_suffix(version); }

// "latest-release" as a span's end: every numbered release, but not main.
bool span_covers(const Json& span, const EngineVersion& version) {
  if (version < version_of(span.at("first"))) return false;
  const std::string last = span.at("last");
  if (last == "main") return true;
  if (last == "latest-release") return !version.main;
  return version <= version_of(last);
}

bool spans_cover(const Json& item, const EngineVersion& version) {
  const Json& spans = item.at("spans");
  return std::any_of(spans.begin(), spans.end(), [&](const Json& span) { return span_covers(span, version); });
}

std::string spans_text(const Json& item) {
  std::string text;
  for (const Json& span : item.at("spans")) {
    if (!text.empty()) text += ", ";
    const std::string first = span.at("first");
    const std::string last = span.at("last");
    text += first == last ? first : fmt::format("{} to {}", first, last);
  }
  return text;
}

const Json* named_in(const Json& list, const std::string& name) {
  for (const Json& entry : list) {
    if (entry.at("name") == name) return &entry;
  }
  return nullptr;
}

// The entry of `name` whose spans cover `version`: a flag whose value changed form between releases has one
// entry per form ([sglang-mini-lb]); with none covering it, the first, so the caller reports the spans.
const Json* entry_in(const Json& document, const std::string& name, const EngineVersion& version) {
  const Json* first = named_in(document.at("entries"), name);
  for (const Json& entry : document.at("entries")) {
    if (entry.at("name") == name && spans_cover(entry, version)) return &entry;
  }
  return first;
}

// The entry of `name` and the version to judge it at: vllm-ascend's own entries first, then upstream's.
std::pair<const Json*, EngineVersion> find_entry(const Table& table, const std::string& name,
                                                 const EngineVersion& version) {
  if (const Json* entry = entry_in(table.document, name, version)) return {entry, version};
  if (table.base) return find_entry(*table.base, name, base_version(version));
  return {nullptr, version};
}

const Json* key_in(const Json& entry, const std::string& key) {
  if (!entry.contains("keys")) return nullptr;
  for (const Json& item : entry.at("keys")) {
    if (item.at("name") == key) return &item;
  }
  return nullptr;
}

bool choice_covered(const Json& item, const std::string& value, const EngineVersion& version) {
  if (!item.contains("choices")) return false;
  for (const Json& choice : item.at("choices")) {
    if (choice.at("value") == value && version >= version_of(choice.at("first"))) return true;
  }
  return false;
}

// The entry (a flag, a variable, or a key of a JSON flag written "FLAG:key") and its judging version.
std::pair<const Json*, EngineVersion> find_item(Engine engine, const std::string& name, const EngineVersion& version) {
  const auto colon = name.find(':');
  if (colon == std::string::npos) return find_entry(table_of(engine), name, version);
  const auto [entry, at] = find_entry(table_of(engine), name.substr(0, colon), version);
  if (!entry) return {nullptr, at};
  return {key_in(*entry, name.substr(colon + 1)), at};
}

bool is_integer(std::string_view text) {
  long long value = 0;
  const auto [next, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && next == text.data() + text.size();
}

bool is_number(const std::string& text) {
  double value = 0;
  const auto [next, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && next == text.data() + text.size();
}

bool is_integer_list(const std::string& text, char separator) {
  std::string_view rest = text;
  while (true) {
    const auto end = rest.find(separator);
    if (!is_integer(rest.substr(0, end))) return false;
    if (end == std::string_view::npos) return true;
    rest.remove_prefix(end + 1);
  }
}

bool is_url(const std::string& text) { return text.starts_with("http://") || text.starts_with("https://"); }

bool is_host_port(const std::string& text) {
  const auto colon = text.rfind(':');
  return colon != std::string::npos && colon > 0 && is_integer(std::string_view{text}.substr(colon + 1));
}

// "node0:8,node1:8": hosts, each with the count of processes it takes.
bool is_host_slots(const std::string& text) {
  std::string_view rest = text;
  while (true) {
    const auto end = rest.find(',');
    if (!is_host_port(std::string(rest.substr(0, end)))) return false;
    if (end == std::string_view::npos) return true;
    rest.remove_prefix(end + 1);
  }
}

// "int-list", "string-list", "url-list" (one or more), "url-and-port" (a URL, then an optional port).
bool list_fits(const std::string& type, const std::vector<std::string>& values) {
  if (values.empty()) return false;
  if (type == "url-and-port")
    return values.size() <= 2 && is_url(values[0]) && (values.size() == 1 || is_integer(values[1]));
  const auto fits = [&](const std::string& value) {
    if (type == "int-list") return is_integer(value);
    if (type == "url-list") return is_url(value);
    return !value.empty();
  };
  return std::all_of(values.begin(), values.end(), fits);
}

// Whether the single `value` has the type `type` names; choices are judged apart.
bool scalar_fits(const std::string& type, const std::string& value) {
  if (type == "int") return is_integer(value);
  if (type == "float") return is_number(value);
  if (type == "string") return !value.empty();
  if (type == "host-port") return is_host_port(value);
  if (type == "int-list-comma") return is_integer_list(value, ',');
  if (type == "url") return is_url(value);
  if (type == "host-slots-comma") return is_host_slots(value);
  return type == "choice";
}

class Checker {
 public:
  Checker(Engine engine, const EngineVersion& version, const LaunchCommand& command, const PlanFacts& facts)
      : engine_(engine), version_(version), command_(command), facts_(facts) {}

  std::vector<TableProblem> run() {
    section_ = program_section(table_of(engine_));
    if (!section_) check_launchers(table_of(engine_).document);
    for (const auto& [name, value] : command_.environment) check_named(name, {value}, "env");
    for (const Argument& argument : command_.arguments) check_named(argument.flag, argument.values, "flag");
    if (!section_) check_constraints(table_of(engine_), version_);
    return problems_;
  }

 private:
  void problem(const std::string& subject, const std::string& reason) { problems_.push_back({subject, reason}); }

  std::string release() const { return fmt::format("{} {}", engine_name(engine_), version_.text()); }

  // The table section of a router or proxy command ("programs", matched by a program token); null for a server.
  const Json* program_section(const Table& table) const {
    if (!table.document.contains("programs")) return table.base ? program_section(*table.base) : nullptr;
    for (const Json& section : table.document.at("programs")) {
      const std::string match = section.at("match");
      if (std::find(command_.program.begin(), command_.program.end(), match) != command_.program.end()) return &section;
    }
    return table.base ? program_section(*table.base) : nullptr;
  }

  // The launchers before the engine's own program ("mpirun -H ... -n N trtllm-llmapi-launch trtllm-serve"):
  // each a program the table's "launchers" list names, followed by its flags and their values.
  void check_launchers(const Json& document) {
    if (!document.contains("launchers")) return;
    const std::vector<std::string>& program = command_.program;
    const Json* launcher = nullptr;
    for (std::size_t index = 0; index < program.size(); ++index) {
      if (const Json* next = named_in(document.at("launchers"), program[index])) {
        launcher = next;
        check_launcher_span(program[index], *launcher);
      } else if (launcher && program[index].starts_with('-')) {
        check_launcher_flag(*launcher, program[index], index + 1 < program.size() ? program[index + 1] : "");
        ++index;
      } else {
        return;  // the engine's own program
      }
    }
  }

  void check_launcher_span(const std::string& name, const Json& entry) {
    if (!spans_cover(entry, version_))
      problem(name, fmt::format("{} has no {} (the table has it in {})", release(), name, spans_text(entry)));
  }

  void check_launcher_flag(const Json& launcher, const std::string& flag, const std::string& value) {
    const std::string subject = fmt::format("{} {}", launcher.at("name").get<std::string>(), flag);
    const Json* entry = launcher.contains("flags") ? named_in(launcher.at("flags"), flag) : nullptr;
    if (!entry) {
      problem(subject, fmt::format("{} is not in the {} flag table", subject, engine_name(engine_)));
      return;
    }
    check_launcher_span(subject, *entry);
    check_scalar(subject, *entry, value, version_);
  }

  std::pair<const Json*, EngineVersion> entry_for(const std::string& name) const {
    if (section_) return {entry_in(*section_, name, version_), version_};
    return find_entry(table_of(engine_), name, version_);
  }

  void check_named(const std::string& name, const std::vector<std::string>& values, const std::string& kind) {
    const auto [entry, at] = entry_for(name);
    if (!entry || entry->at("kind") != kind) {
      problem(name, fmt::format("{} is not in the {} flag table", name, engine_name(engine_)));
      return;
    }
    if (!spans_cover(*entry, at)) {
      problem(name, fmt::format("{} has no {} (the table has it in {})", release(), name, spans_text(*entry)));
      return;
    }
    check_values(name, *entry, values, at);
  }

  void check_values(const std::string& name, const Json& entry, const std::vector<std::string>& values,
                    const EngineVersion& at) {
    const std::string type = entry.at("value");
    if (type == "none") {
      if (!values.empty()) problem(name, fmt::format("{} takes no value", name));
      return;
    }
    if (type.ends_with("-list") || type == "url-and-port") {
      if (!list_fits(type, values)) problem(name, fmt::format("{} takes {}", name, type));
      return;
    }
    if (values.size() != 1) {
      problem(name, fmt::format("{} takes one value, got {}", name, values.size()));
      return;
    }
    if (type == "json") {
      check_json(name, entry, values.front(), at);
      return;
    }
    check_scalar(name, entry, values.front(), at);
  }

  void check_scalar(const std::string& name, const Json& entry, const std::string& value, const EngineVersion& at) {
    const std::string type = entry.at("value");
    if (!scalar_fits(type, value)) {
      problem(name, fmt::format("{} takes {}, got '{}'", name, type, value));
      return;
    }
    if (type == "choice" && !choice_covered(entry, value, at))
      problem(name, fmt::format("{} does not accept {} {} (the table's choices name the first release of each)",
                                release(), name, value));
  }

  void check_json(const std::string& name, const Json& entry, const std::string& text, const EngineVersion& at) {
    const Json value = Json::parse(text, nullptr, false);
    if (!value.is_object()) {
      problem(name, fmt::format("{} takes a JSON object, got '{}'", name, text));
      return;
    }
    if (entry.contains("keys")) check_keys(name, entry, value, "", at);
  }

  void check_keys(const std::string& flag, const Json& entry, const Json& object, const std::string& prefix,
                  const EngineVersion& at) {
    for (const auto& [key, value] : object.items()) {
      const std::string path = prefix.empty() ? key : fmt::format("{}.{}", prefix, key);
      const std::string subject = fmt::format("{} {}", flag, path);
      // The flag's own entry holds its keys, in the engine's entries or a router program's section.
      const Json* item = key_in(entry, path);
      const EngineVersion& item_at = at;
      if (!item) {
        problem(subject, fmt::format("{} does not read {} key {}", release(), flag, path));
        continue;
      }
      if (!spans_cover(*item, item_at)) {
        problem(subject, fmt::format("{} does not read {} key {} (the table has it in {})", release(), flag, path,
                                     spans_text(*item)));
        continue;
      }
      check_key_value(flag, *item, path, value, item_at);
      if (value.is_object() && item->at("value") != "object") check_keys(flag, entry, value, path, at);
    }
  }

  void check_key_value(const std::string& flag, const Json& item, const std::string& path, const Json& value,
                       const EngineVersion& at) {
    const std::string type = item.at("value");
    const bool fits = (type == "object" && value.is_object()) || (type == "mapping" && value.is_object()) ||
                      (type == "mapping-or-null" && (value.is_object() || value.is_null())) ||
                      (type == "int" && value.is_number_integer()) || (type == "bool" && value.is_boolean()) ||
                      (type == "string" && value.is_string()) ||
                      (type == "int-text" &&
                       (value.is_number_integer() || (value.is_string() && is_integer(value.get<std::string>())))) ||
                      (type == "int-array" && value.is_array()) || (type == "string-array" && value.is_array()) ||
                      (type == "choice" && value.is_string());
    if (!fits) {
      problem(flag + " " + path, fmt::format("{} key {} takes {}, got {}", flag, path, type, value.dump()));
      return;
    }
    if (type == "choice" && !choice_covered(item, value.get<std::string>(), at))
      problem(flag + " " + path, fmt::format("{} does not accept {} key {} = {}", release(), flag, path, value.dump()));
  }

  // The value a condition reads: a flag's or variable's text, a JSON key's scalar, or a plan fact.
  std::optional<std::string> condition_value(const Json& condition) const {
    if (condition.contains("flag")) return command_.value_of(condition.at("flag"));
    if (condition.contains("env")) return environment_value(condition.at("env"));
    if (condition.contains("config")) return config_value(condition.at("config"), condition.at("key"));
    return plan_value(condition.at("plan"));
  }

  std::optional<std::string> environment_value(const std::string& name) const {
    for (const auto& [variable, value] : command_.environment) {
      if (variable == name) return value;
    }
    return std::nullopt;
  }

  std::optional<std::string> config_value(const std::string& flag, const std::string& key) const {
    const auto text = command_.value_of(flag);
    if (!text) return std::nullopt;
    const Json document = Json::parse(*text, nullptr, false);
    const Json* node = &document;
    std::string_view rest = key;
    while (!rest.empty()) {
      const auto dot = rest.find('.');
      const std::string part(rest.substr(0, dot));
      if (!node->is_object() || !node->contains(part)) return std::nullopt;
      node = &node->at(part);
      rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    }
    return node->is_string() ? node->get<std::string>() : node->dump();
  }

  std::optional<std::string> plan_value(const std::string& fact) const {
    if (fact == "fused_shared") return std::to_string(facts_.fused_shared);
    if (fact == "routed_experts") return std::to_string(facts_.routed_experts);
    if (fact == "shared_experts") return std::to_string(facts_.shared_experts);
    if (fact == "on_ascend") return facts_.on_ascend ? "1" : "0";
    return facts_.model;
  }

  bool condition_holds(const Json& condition) const {
    std::optional<std::string> value = condition_value(condition);
    if (condition.value("absent", false)) return !value;
    if (!value && condition.contains("default")) value = condition.at("default").get<std::string>();
    if (!value) return false;
    if (condition.contains("in")) return contains(condition.at("in"), *value);
    if (condition.contains("not_in")) return !contains(condition.at("not_in"), *value);
    if (condition.contains("above"))
      return is_number(*value) && std::stod(*value) > condition.at("above").get<double>();
    if (condition.contains("is")) return is_number(*value) && std::stod(*value) == condition.at("is").get<double>();
    if (condition.contains("starts_with")) return value->starts_with(condition.at("starts_with").get<std::string>());
    if (condition.contains("differs_from")) return differs(*value, condition.at("differs_from"));
    return true;
  }

  static bool contains(const Json& list, const std::string& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
  }

  bool differs(const std::string& value, const std::string& other_flag) const {
    const auto other = command_.value_of(other_flag);
    return other && *other != value;
  }

  void check_constraints(const Table& table, const EngineVersion& version) {
    if (table.document.contains("constraints")) {
      for (const Json& constraint : table.document.at("constraints")) check_constraint(constraint, version);
    }
    if (table.base) check_constraints(*table.base, base_version(version));
  }

  void check_constraint(const Json& constraint, const EngineVersion& version) {
    if (!spans_cover(constraint, version)) return;
    const Json& conditions = constraint.at("when");
    if (!std::all_of(conditions.begin(), conditions.end(), [&](const Json& item) { return condition_holds(item); }))
      return;
    const bool misrun = constraint.at("effect") == "misrun";
    problem(constraint.at("id"), fmt::format("{} {}: {}", release(), misrun ? "runs it wrongly" : "refuses it",
                                             constraint.at("reason").get<std::string>()));
  }

  Engine engine_;
  EngineVersion version_;
  const LaunchCommand& command_;
  const PlanFacts& facts_;
  const Json* section_ = nullptr;
  std::vector<TableProblem> problems_;
};

}  // namespace

PlanFacts plan_facts(const PlanFile& plan, const RolePlan& role) {
  return {role.layout.fused_shared, plan.model.num_experts, plan.model.shared_experts, plan.scenario.on_ascend(),
          plan.model.name};
}

std::vector<EngineVersion> table_versions(Engine engine) {
  std::vector<EngineVersion> versions;
  for (const Json& item : table_of(engine).document.at("versions")) versions.push_back(version_of(item.at("version")));
  return versions;
}

bool table_accepts(Engine engine, const EngineVersion& version, const std::string& name) {
  const auto [item, at] = find_item(engine, name, version);
  return item && spans_cover(*item, at);
}

bool table_accepts_choice(Engine engine, const EngineVersion& version, const std::string& name,
                          const std::string& value) {
  const auto [item, at] = find_item(engine, name, version);
  return item && spans_cover(*item, at) && choice_covered(*item, value, at);
}

std::vector<TableProblem> check_command(Engine engine, const EngineVersion& version, const LaunchCommand& command,
                                        const PlanFacts& facts) {
  return Checker(engine, version, command, facts).run();
}

std::string table_file(Engine engine) { return fmt::format("lib/export/flags/{}.json", table_name(engine)); }

}  // namespace moeplan::exporting
