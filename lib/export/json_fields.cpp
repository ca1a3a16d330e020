#include "export/json_fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <fstream>

#include "io/input_error.hpp"

namespace moeplan::exporting {

JsonFields::JsonFields(const nlohmann::json& object, std::string file, std::string path)
    : object_(object), file_(std::move(file)), path_(std::move(path)) {
  if (!object_.is_object()) throw InputError(file_, path_.empty() ? "<root>" : path_, "a JSON object");
}

std::string JsonFields::key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

const nlohmann::json& JsonFields::value(const char* key, const std::string& expectation) const {
  if (!object_.contains(key)) throw InputError(file_, key_path(key), expectation + " (the key is missing)");
  return object_.at(key);
}

std::int64_t JsonFields::integer(const char* key, std::int64_t minimum, std::int64_t maximum) const {
  const std::string expectation = fmt::format("an integer in [{}, {}]", minimum, maximum);
  const nlohmann::json& found = value(key, expectation);
  if (!found.is_number_integer() || found.get<std::int64_t>() < minimum || found.get<std::int64_t>() > maximum) {
    throw InputError(file_, key_path(key), fmt::format("{}, got {}", expectation, found.dump()));
  }
  return found.get<std::int64_t>();
}

double JsonFields::number(const char* key, double minimum, double maximum) const {
  const std::string expectation = fmt::format("a number in [{}, {}]", minimum, maximum);
  const nlohmann::json& found = value(key, expectation);
  if (!found.is_number() || !std::isfinite(found.get<double>()) || found.get<double>() < minimum ||
      found.get<double>() > maximum) {
    throw InputError(file_, key_path(key), fmt::format("{}, got {}", expectation, found.dump()));
  }
  return found.get<double>();
}

bool JsonFields::boolean(const char* key) const {
  const nlohmann::json& found = value(key, "true or false");
  if (!found.is_boolean()) throw InputError(file_, key_path(key), fmt::format("true or false, got {}", found.dump()));
  return found.get<bool>();
}

std::string JsonFields::text(const char* key) const {
  const nlohmann::json& found = value(key, "a string");
  if (!found.is_string()) throw InputError(file_, key_path(key), fmt::format("a string, got {}", found.dump()));
  return found.get<std::string>();
}

std::size_t JsonFields::choice(const char* key, const std::vector<std::string>& choices) const {
  const std::string expectation = fmt::format("one of {}", fmt::join(choices, ", "));
  const nlohmann::json& found = value(key, expectation);
  for (std::size_t index = 0; index < choices.size(); ++index) {
    if (found.is_string() && found.get<std::string>() == choices[index]) return index;
  }
  throw InputError(file_, key_path(key), fmt::format("{}, got {}", expectation, found.dump()));
}

const nlohmann::json& JsonFields::object(const char* key) const {
  const nlohmann::json& found = value(key, "a JSON object");
  if (!found.is_object()) throw InputError(file_, key_path(key), "a JSON object");
  return found;
}

const nlohmann::json& JsonFields::array(const char* key) const {
  const nlohmann::json& found = value(key, "a non-empty list");
  if (!found.is_array() || found.empty()) throw InputError(file_, key_path(key), "a non-empty list");
  return found;
}

nlohmann::json read_json_file(const std::string& file) {
  std::ifstream stream(file);
  if (!stream) throw InputError(file, "", "an existing, readable file");
  nlohmann::json document = nlohmann::json::parse(stream, nullptr, false);
  if (document.is_discarded()) throw InputError(file, "", "well-formed JSON");
  return document;
}

}  // namespace moeplan::exporting
