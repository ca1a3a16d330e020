#include "io/json_fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <fstream>

#include "io/input_error.hpp"

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
  fail(key, fmt::format("{}, got {}", expectation, found.dump()));
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

nlohmann::json read_json_file(const std::string& file) {
  std::ifstream stream(file);
  if (!stream) throw InputError(file, "", "an existing, readable file");
  nlohmann::json document = nlohmann::json::parse(stream, nullptr, false);
  if (document.is_discarded()) throw InputError(file, "", "well-formed JSON");
  return document;
}

}  // namespace moeplan
