#include "calib/json_fields.hpp"

#include <cmath>

#include "io/input_error.hpp"

namespace moeplan::calib {

JsonFields::JsonFields(const nlohmann::json& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {
  if (!node_.is_object()) throw InputError(file_, path_.empty() ? "(document)" : path_, "a JSON object");
}

std::string JsonFields::path_of(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void JsonFields::fail(const std::string& key, const std::string& expectation) const {
  throw InputError(file_, path_of(key), expectation);
}

const nlohmann::json& JsonFields::field(const std::string& key) const {
  const auto found = node_.find(key);
  if (found == node_.end()) fail(key, "a value (the key is missing)");
  return *found;
}

bool JsonFields::has(const std::string& key) const { return node_.contains(key); }

bool JsonFields::is_null(const std::string& key) const { return field(key).is_null(); }

JsonFields JsonFields::object(const std::string& key) const {
  const nlohmann::json& value = field(key);
  if (!value.is_object()) fail(key, "a JSON object");
  return JsonFields(value, file_, path_of(key));
}

const nlohmann::json& JsonFields::array(const std::string& key) const {
  const nlohmann::json& value = field(key);
  if (!value.is_array()) fail(key, "a JSON array");
  return value;
}

JsonFields JsonFields::element(const nlohmann::json& node, std::size_t index, const std::string& key) const {
  const std::string path = path_of(key) + "[" + std::to_string(index) + "]";
  if (!node.is_object()) throw InputError(file_, path, "a JSON object");
  return JsonFields(node, file_, path);
}

std::string JsonFields::text(const std::string& key) const {
  const nlohmann::json& value = field(key);
  if (!value.is_string()) fail(key, "a string");
  return value.get<std::string>();
}

double JsonFields::number(const std::string& key) const {
  const nlohmann::json& value = field(key);
  if (!value.is_number() || !std::isfinite(value.get<double>())) fail(key, "a finite number");
  return value.get<double>();
}

double JsonFields::positive(const std::string& key) const {
  const double value = number(key);
  if (value <= 0) fail(key, "a number above 0, got " + std::to_string(value));
  return value;
}

double JsonFields::non_negative(const std::string& key) const {
  const double value = number(key);
  if (value < 0) fail(key, "a number of at least 0, got " + std::to_string(value));
  return value;
}

std::int64_t JsonFields::integer(const std::string& key, std::int64_t minimum, std::int64_t maximum) const {
  const nlohmann::json& value = field(key);
  if (!value.is_number_integer() || value.get<std::int64_t>() < minimum || value.get<std::int64_t>() > maximum) {
    fail(key, "an integer in [" + std::to_string(minimum) + ", " + std::to_string(maximum) + "]");
  }
  return value.get<std::int64_t>();
}

bool JsonFields::flag(const std::string& key) const {
  const nlohmann::json& value = field(key);
  if (!value.is_boolean()) fail(key, "true or false");
  return value.get<bool>();
}

}  // namespace moeplan::calib
