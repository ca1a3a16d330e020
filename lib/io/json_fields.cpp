#include "io/json_fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <set>

#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "io/input_file.hpp"

namespace moeplan {

JsonFields::JsonFields(const nlohmann::json& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {
  if (!node_.is_object()) throw InputError(file_, path_.empty() ? "(document)" : path_, "a JSON object");
}

std::string JsonFields::key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void JsonFields::fail(const std::string& key, const std::string& expectation) const {
  throw InputError(file_, key_path(key), expectation);
}

void JsonFields::fail_found(const std::string& key, const std::string& expectation, const nlohmann::json& found) const {
  fail(key, fmt::format("{}, got {}", expectation, echoed(found.dump())));
}

const nlohmann::json& JsonFields::value(const std::string& key, const std::string& expectation) const {
  const auto found = node_.find(key);
  if (found == node_.end()) fail(key, expectation + " (the key is missing)");
  return *found;
}

bool JsonFields::has(const std::string& key) const { return node_.contains(key); }

bool JsonFields::is_null(const std::string& key) const { return value(key, "a value or null").is_null(); }

JsonFields JsonFields::object(const std::string& key) const {
  const nlohmann::json& found = value(key, "a JSON object");
  if (!found.is_object()) fail(key, "a JSON object");
  return JsonFields(found, file_, key_path(key));
}

JsonFields JsonFields::element(const nlohmann::json& node, std::size_t index, const std::string& key) const {
  const std::string path = key_path(key) + "[" + std::to_string(index) + "]";
  if (!node.is_object()) throw InputError(file_, path, "a JSON object");
  return JsonFields(node, file_, path);
}

const nlohmann::json& JsonFields::array(const std::string& key) const {
  const nlohmann::json& found = value(key, "a JSON array");
  if (!found.is_array()) fail(key, "a JSON array");
  return found;
}

const nlohmann::json& JsonFields::non_empty_array(const std::string& key) const {
  const nlohmann::json& found = value(key, "a non-empty list");
  if (!found.is_array() || found.empty()) fail(key, "a non-empty list");
  return found;
}

std::string JsonFields::text(const std::string& key) const {
  const nlohmann::json& found = value(key, "a string");
  if (!found.is_string()) fail_found(key, "a string", found);
  return found.get<std::string>();
}

std::size_t JsonFields::choice(const std::string& key, const std::vector<std::string>& choices) const {
  const std::string expectation = fmt::format("one of {}", fmt::join(choices, ", "));
  const nlohmann::json& found = value(key, expectation);
  for (std::size_t index = 0; index < choices.size(); ++index) {
    if (found.is_string() && found.get<std::string>() == choices[index]) return index;
  }
  fail_found(key, expectation, found);
}

double JsonFields::number(const std::string& key) const {
  const nlohmann::json& found = value(key, "a finite number");
  if (!found.is_number() || !std::isfinite(found.get<double>())) fail_found(key, "a finite number", found);
  return found.get<double>();
}

double JsonFields::number(const std::string& key, double minimum, double maximum) const {
  const std::string expectation = fmt::format("a number in [{}, {}]", minimum, maximum);
  const nlohmann::json& found = value(key, expectation);
  if (!found.is_number() || !std::isfinite(found.get<double>()) || found.get<double>() < minimum ||
      found.get<double>() > maximum) {
    fail_found(key, expectation, found);
  }
  return found.get<double>();
}

double JsonFields::positive(const std::string& key) const {
  const double found = number(key);
  if (found <= 0) fail(key, fmt::format("a number above 0, got {}", found));
  return found;
}

double JsonFields::non_negative(const std::string& key) const {
  const double found = number(key);
  if (found < 0) fail(key, fmt::format("a number of at least 0, got {}", found));
  return found;
}

std::int64_t JsonFields::integer(const std::string& key, std::int64_t minimum, std::int64_t maximum) const {
  const std::string expectation = fmt::format("an integer in [{}, {}]", minimum, maximum);
  const nlohmann::json& found = value(key, expectation);
  if (!found.is_number_integer() || found.get<std::int64_t>() < minimum || found.get<std::int64_t>() > maximum) {
    fail_found(key, expectation, found);
  }
  return found.get<std::int64_t>();
}

bool JsonFields::flag(const std::string& key) const {
  const nlohmann::json& found = value(key, "true or false");
  if (!found.is_boolean()) fail_found(key, "true or false", found);
  return found.get<bool>();
}

namespace {

// The objects and arrays open at a point of the parse, with each object's keys so far and each array's
// next index, to name a repeated key by its full path. Each level holds only its own step of the path
// (its key or index), so memory grows with the input's size, not with its depth times its size; the full
// path is put together only for a refusal.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(std::string file) : file_(std::move(file)) {}

  bool on_event(nlohmann::json::parse_event_t event, const nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start || event == Event::array_start) {
      open_level(event == Event::object_start);
    } else if (event == Event::key) {
      add_key(parsed.get<std::string>());
    } else {
      if (event != Event::value) levels_.pop_back();
      if (!levels_.empty() && !levels_.back().object) ++levels_.back().next_index;
    }
    return true;
  }

 private:
  struct Level {
    bool object = false;
    std::set<std::string> keys;
    std::string step;  // ".key" or "[index]" from the parent; "" for the document
    std::string last_key;
    std::int64_t next_index = 0;
  };

  // The step from the innermost open level to the value that starts now.
  std::string child_step() const {
    if (levels_.empty()) return "";
    const Level& parent = levels_.back();
    if (!parent.object) return fmt::format("[{}]", parent.next_index);
    return "." + parent.last_key;
  }

  // The key path of the value that starts now: every open level's step, then the child's.
  std::string child_path() const {
    std::string path;
    for (const Level& level : levels_) path += level.step;
    path += child_step();
    return path.starts_with(".") ? path.substr(1) : path;
  }

  void open_level(bool object) {
    if (static_cast<std::int64_t>(levels_.size()) >= kDeepestJsonNesting) {
      throw InputError(
          file_, child_path(),
          fmt::format("at most {} levels of nested lists and objects (docs/budgets.md)", kDeepestJsonNesting));
    }
    levels_.push_back({object, {}, child_step(), "", 0});
  }

  void add_key(const std::string& key) {
    Level& level = levels_.back();
    level.last_key = key;
    if (level.keys.insert(key).second) return;
    throw InputError(file_, child_path(), "each key once (this one is written twice)");
  }

  std::string file_;
  std::vector<Level> levels_;
};

}  // namespace

nlohmann::json::parser_callback_t refuse_duplicate_keys(const std::string& file) {
  auto check = std::make_shared<DuplicateKeyCheck>(file);
  return [check](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    return check->on_event(event, parsed);
  };
}

nlohmann::json read_json_file(const std::string& file) {
  std::ifstream stream = open_input_file(file, kLargestDocument);
  nlohmann::json document = nlohmann::json::parse(stream, refuse_duplicate_keys(file), false);
  if (document.is_discarded()) throw InputError(file, "", "well-formed JSON");
  return document;
}

}  // namespace moeplan
