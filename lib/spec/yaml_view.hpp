#pragma once
// Typed, validated reads from a YAML map: every failure names the file, the key path and
// what was expected, so parsers stay one line per field.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace moeplan {

class YamlView {
 public:
  YamlView(const YAML::Node& node, std::string file, std::string path);

  // Parses a file that must hold a YAML map at its top level.
  static YamlView load_file(const std::filesystem::path& file);

  bool has(const std::string& key) const;
  YamlView child(const std::string& key) const;
  std::optional<YamlView> optional_child(const std::string& key) const;
  std::vector<std::string> keys() const;

  std::int64_t integer(const std::string& key, std::int64_t minimum, std::int64_t maximum) const;
  std::int64_t integer_or(const std::string& key, std::int64_t fallback, std::int64_t minimum,
                          std::int64_t maximum) const;
  double number(const std::string& key, double minimum, double maximum) const;
  double number_or(const std::string& key, double fallback, double minimum, double maximum) const;
  std::string text(const std::string& key) const;
  std::string text_or(const std::string& key, const std::string& fallback) const;
  bool flag_or(const std::string& key, bool fallback) const;
  std::vector<std::int64_t> integer_list(const std::string& key, std::int64_t minimum, std::int64_t maximum) const;
  std::vector<double> number_list(const std::string& key, double minimum, double maximum) const;

  // Rejects keys this schema does not know, so a typo is an error rather than a silent default.
  void expect_only(const std::vector<std::string>& allowed) const;

  const std::string& file() const { return file_; }
  const YAML::Node& node() const { return node_; }
  std::string key_path(const std::string& key) const;

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;

  YAML::Node scalar(const std::string& key) const;
  // A present scalar `value` at key path `path` read as an integer or finite number in [minimum, maximum].
  std::int64_t integer_at(const YAML::Node& value, const std::string& path, std::int64_t minimum,
                          std::int64_t maximum) const;
  double number_at(const YAML::Node& value, const std::string& path, double minimum, double maximum) const;
  // Element `index` of the sequence at `key`: a present single value, named "key[index]".
  YAML::Node element(const YAML::Node& sequence, const std::string& key, std::size_t index) const;
};

}  // namespace moeplan
