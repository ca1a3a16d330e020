#pragma once
// Typed, validated reads from a parsed JSON document: every failure is an InputError naming the file,
// the dotted key path and what was expected.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace moeplan::calib {

// Past any size a calibration measures (2^40 bytes or elements).
constexpr std::int64_t kLargestCount = std::int64_t{1} << 40;

class JsonFields {
 public:
  JsonFields(const nlohmann::json& node, std::string file, std::string path);

  JsonFields object(const std::string& key) const;
  const nlohmann::json& array(const std::string& key) const;
  JsonFields element(const nlohmann::json& node, std::size_t index, const std::string& key) const;
  bool has(const std::string& key) const;
  bool is_null(const std::string& key) const;

  std::string text(const std::string& key) const;
  double number(const std::string& key) const;           // finite
  double positive(const std::string& key) const;         // finite, > 0
  double non_negative(const std::string& key) const;     // finite, >= 0
  std::int64_t integer(const std::string& key, std::int64_t minimum, std::int64_t maximum = kLargestCount) const;
  bool flag(const std::string& key) const;

  const nlohmann::json& node() const { return node_; }
  [[noreturn]] void fail(const std::string& key, const std::string& expectation) const;

 private:
  const nlohmann::json& field(const std::string& key) const;
  std::string path_of(const std::string& key) const;

  const nlohmann::json& node_;
  std::string file_;
  std::string path_;
};

}  // namespace moeplan::calib
