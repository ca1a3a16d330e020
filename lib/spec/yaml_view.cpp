#include "spec/yaml_view.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "io/input_file.hpp"

namespace moeplan {

YamlView::YamlView(const YAML::Node& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {}

YamlView YamlView::load_file(const std::filesystem::path& file) {
  std::ifstream stream = open_input_file(file.string(), kLargestDocument);
  YAML::Node root;
  try {
    root = YAML::Load(stream);
  } catch (const YAML::Exception& error) {
    throw InputError(file.string(), "",
                     fmt::format("well-formed YAML ({} at line {}, column {})", error.msg, error.mark.line + 1,
                                 error.mark.column + 1));
  }
  if (!root.IsMap()) throw InputError(file.string(), "", "a YAML mapping at the top level");
  return YamlView(root, file.string(), "");
}

std::string YamlView::key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

// A key written with no value ("key:" or "key: ~") is present, and refused where it is read: an empty
// entry is more often a value left out by mistake than a request for the default.
bool YamlView::has(const std::string& key) const { return node_[key].IsDefined(); }

YamlView YamlView::child(const std::string& key) const {
  if (!has(key)) throw InputError(file_, key_path(key), "a mapping (the key is missing)");
  const YAML::Node value = node_[key];
  if (value.IsNull()) throw InputError(file_, key_path(key), "a mapping, got an empty entry");
  if (!value.IsMap()) throw InputError(file_, key_path(key), "a mapping");
  return YamlView(value, file_, key_path(key));
}

std::optional<YamlView> YamlView::optional_child(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return child(key);
}

std::vector<std::string> YamlView::keys() const {
  std::vector<std::string> names;
  for (const auto& entry : node_) {
    // YAML allows lists and mappings as keys ("? [a, b]: c"); no schema of ours has one.
    if (!entry.first.IsScalar()) throw InputError(file_, path_.empty() ? "<top level>" : path_, "plain text keys");
    // yaml-cpp keeps both entries of a repeated key and lookups find the first, so a later one would be ignored.
    if (std::find(names.begin(), names.end(), entry.first.Scalar()) != names.end()) {
      throw InputError(file_, key_path(entry.first.Scalar()), "each key once (this one is written twice)");
    }
    names.push_back(entry.first.Scalar());
  }
  return names;
}

YAML::Node YamlView::scalar(const std::string& key) const {
  if (!has(key)) throw InputError(file_, key_path(key), "a value (the key is missing)");
  const YAML::Node value = node_[key];
  if (value.IsNull()) throw InputError(file_, key_path(key), "a value, got an empty entry");
  if (!value.IsScalar()) throw InputError(file_, key_path(key), "a single value, not a list or mapping");
  return value;
}

std::int64_t YamlView::integer(const std::string& key, std::int64_t minimum, std::int64_t maximum) const {
  return integer_at(scalar(key), key_path(key), minimum, maximum);
}

std::int64_t YamlView::integer_at(const YAML::Node& value, const std::string& path, std::int64_t minimum,
                                  std::int64_t maximum) const {
  const std::string range = fmt::format("an integer in [{}, {}]", minimum, maximum);
  std::int64_t parsed = 0;
  try {
    parsed = value.as<std::int64_t>();
  } catch (const YAML::Exception&) {
    throw InputError(file_, path, fmt::format("{}, got '{}'", range, echoed(value.Scalar())));
  }
  if (parsed < minimum || parsed > maximum) throw InputError(file_, path, fmt::format("{}, got {}", range, parsed));
  return parsed;
}

std::int64_t YamlView::integer_or(const std::string& key, std::int64_t fallback, std::int64_t minimum,
                                  std::int64_t maximum) const {
  return has(key) ? integer(key, minimum, maximum) : fallback;
}

double YamlView::number(const std::string& key, double minimum, double maximum) const {
  return number_at(scalar(key), key_path(key), minimum, maximum);
}

double YamlView::number_at(const YAML::Node& value, const std::string& path, double minimum, double maximum) const {
  const std::string range = fmt::format("a finite number in [{}, {}]", minimum, maximum);
  double parsed = 0;
  try {
    parsed = value.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(file_, path, fmt::format("{}, got '{}'", range, echoed(value.Scalar())));
  }
  if (!std::isfinite(parsed) || parsed < minimum || parsed > maximum) {
    throw InputError(file_, path, fmt::format("{}, got {}", range, echoed(value.Scalar())));
  }
  return parsed;
}

YAML::Node YamlView::element(const YAML::Node& sequence, const std::string& key, std::size_t index) const {
  const std::string path = fmt::format("{}[{}]", key_path(key), index);
  const YAML::Node value = sequence[index];
  if (!value.IsDefined() || value.IsNull()) throw InputError(file_, path, "a value, got an empty entry");
  if (!value.IsScalar()) throw InputError(file_, path, "a single value, not a list or mapping");
  return value;
}

double YamlView::number_or(const std::string& key, double fallback, double minimum, double maximum) const {
  return has(key) ? number(key, minimum, maximum) : fallback;
}

std::string YamlView::text(const std::string& key) const {
  std::string value = scalar(key).Scalar();
  if (value.empty()) throw InputError(file_, key_path(key), "a non-empty string");
  // "\0" escapes a NUL into a YAML string; every reader of a C string would cut the value there.
  if (value.find('\0') != std::string::npos) throw InputError(file_, key_path(key), "a string without NUL bytes");
  return value;
}

std::string YamlView::text_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? text(key) : fallback;
}

bool YamlView::flag_or(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const YAML::Node value = scalar(key);
  try {
    return value.as<bool>();
  } catch (const YAML::Exception&) {
    throw InputError(file_, key_path(key), fmt::format("true or false, got '{}'", echoed(value.Scalar())));
  }
}

std::vector<std::int64_t> YamlView::integer_list(const std::string& key, std::int64_t minimum,
                                                 std::int64_t maximum) const {
  if (!has(key)) throw InputError(file_, key_path(key), "a list of integers (the key is missing)");
  const YAML::Node value = node_[key];
  if (value.IsScalar()) return {integer(key, minimum, maximum)};
  if (!value.IsSequence() || value.size() == 0) throw InputError(file_, key_path(key), "a non-empty list of integers");
  check_budget(file_, key_path(key), static_cast<double>(value.size()), kMostListEntries, "list entries");
  std::vector<std::int64_t> result;
  for (std::size_t index = 0; index < value.size(); ++index) {
    result.push_back(
        integer_at(element(value, key, index), fmt::format("{}[{}]", key_path(key), index), minimum, maximum));
  }
  return result;
}

std::vector<double> YamlView::number_list(const std::string& key, double minimum, double maximum) const {
  if (!has(key)) throw InputError(file_, key_path(key), "a list of numbers (the key is missing)");
  const YAML::Node value = node_[key];
  if (value.IsScalar()) return {number(key, minimum, maximum)};
  if (!value.IsSequence() || value.size() == 0) throw InputError(file_, key_path(key), "a non-empty list of numbers");
  check_budget(file_, key_path(key), static_cast<double>(value.size()), kMostListEntries, "list entries");
  std::vector<double> result;
  for (std::size_t index = 0; index < value.size(); ++index) {
    result.push_back(
        number_at(element(value, key, index), fmt::format("{}[{}]", key_path(key), index), minimum, maximum));
  }
  return result;
}

void YamlView::expect_only(const std::vector<std::string>& allowed) const {
  for (const std::string& name : keys()) {
    bool known = false;
    for (const std::string& candidate : allowed) known = known || candidate == name;
    if (!known) {
      std::string list;
      for (const std::string& candidate : allowed) list += (list.empty() ? "" : ", ") + candidate;
      throw InputError(file_, key_path(name), fmt::format("a known key (one of: {})", list));
    }
  }
}

}  // namespace moeplan
