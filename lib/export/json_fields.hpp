#pragma once
// Typed reads from a JSON object: each failure is an InputError naming the file and the full key
// path ("plans[0].roles[1].gpus") and what was expected.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace moeplan::exporting {

class JsonFields {
 public:
  // `object` must outlive this view; `path` is its own key path ("" for the document root).
  JsonFields(const nlohmann::json& object, std::string file, std::string path);

  std::int64_t integer(const char* key, std::int64_t minimum, std::int64_t maximum) const;
  double number(const char* key, double minimum, double maximum) const;
  bool boolean(const char* key) const;
  std::string text(const char* key) const;
  // The value must be one of `choices`; returns its index there.
  std::size_t choice(const char* key, const std::vector<std::string>& choices) const;
  const nlohmann::json& object(const char* key) const;
  const nlohmann::json& array(const char* key) const;
  bool has(const char* key) const { return object_.contains(key); }

  std::string key_path(const std::string& key) const;
  const std::string& file() const { return file_; }

 private:
  const nlohmann::json& value(const char* key, const std::string& expectation) const;

  const nlohmann::json& object_;
  std::string file_;
  std::string path_;
};

// Reads a JSON document; a missing file or malformed JSON is an InputError naming the file.
nlohmann::json read_json_file(const std::string& file);

}  // namespace moeplan::exporting
