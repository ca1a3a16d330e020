#pragma once
// Typed, validated reads from a parsed JSON object: every failure is an InputError naming the file, the
// full key path ("plans[0].roles[1].gpus") and what was expected, with what was found.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace moeplan {

// Past any count or size the program's JSON files hold (2^40).
constexpr std::int64_t kLargestJsonCount = std::int64_t{1} << 40;

class JsonFields {
 public:
  // `node` must outlive this view; `path` is its own key path ("" for the document root).
  JsonFields(const nlohmann::json& node, std::string file, std::string path);

  JsonFields object(const std::string& key) const;
  // An element of the array at `key`, itself an object.
  JsonFields element(const nlohmann::json& node, std::size_t index, const std::string& key) const;
  const nlohmann::json& array(const std::string& key) const;
  const nlohmann::json& non_empty_array(const std::string& key) const;
  bool has(const std::string& key) const;
  bool is_null(const std::string& key) const;

  std::string text(const std::string& key) const;
  // The value must be one of `choices`; returns its index there.
  std::size_t choice(const std::string& key, const std::vector<std::string>& choices) const;
  double number(const std::string& key) const;                                  // finite
  double number(const std::string& key, double minimum, double maximum) const;  // finite, in the range
  double positive(const std::string& key) const;                                // finite, > 0
  double non_negative(const std::string& key) const;                            // finite, >= 0
  std::int64_t integer(const std::string& key, std::int64_t minimum, std::int64_t maximum = kLargestJsonCount) const;
  bool flag(const std::string& key) const;

  const nlohmann::json& node() const { return node_; }
  const std::string& file() const { return file_; }
  std::string key_path(const std::string& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& expectation) const;

 private:
  // The value at `key`; a missing key fails with `expectation`.
  const nlohmann::json& value(const std::string& key, const std::string& expectation) const;
  [[noreturn]] void fail_found(const std::string& key, const std::string& expectation,
                               const nlohmann::json& found) const;

  const nlohmann::json& node_;
  std::string file_;
  std::string path_;
};

// Reads a JSON document; a missing file, one past kLargestDocument, malformed JSON or a key written twice in
// one object is an InputError naming the file.
nlohmann::json read_json_file(const std::string& file);

// A parse callback that refuses a key written twice in one object (nlohmann would keep the last value
// silently), naming its key path; pass it to nlohmann::json::parse.
nlohmann::json::parser_callback_t refuse_duplicate_keys(const std::string& file);

}  // namespace moeplan
