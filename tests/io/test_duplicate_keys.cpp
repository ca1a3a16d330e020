// A JSON key written twice in one object is refused by its full path; nlohmann alone keeps the last.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "io/input_error.hpp"
#include "io/json_fields.hpp"

namespace {

std::string duplicate_error(const std::string& text) {
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text, moeplan::refuse_duplicate_keys("plan.json"));
    CHECK(parsed.is_structured());
  } catch (const moeplan::InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a repeated key is named by its path through objects and arrays") {
  const std::string twice = ": expected each key once (this one is written twice)";
  CHECK(duplicate_error(R"({"a": 1, "a": 2})") == "plan.json: a" + twice);
  CHECK(duplicate_error(R"({"a": {"b": 1, "c": 2, "b": 3}})") == "plan.json: a.b" + twice);
  // The second element of "plans" (index 1) holds the repeat; the first element's "x" is not one.
  CHECK(duplicate_error(R"({"plans": [{"x": 1}, {"y": [1, 2], "x": 1, "x": 2}]})") == "plan.json: plans[1].x" + twice);
  CHECK(duplicate_error(R"([[0], {"k": 1, "k": 1}])") == "plan.json: [1].k" + twice);
}

TEST_CASE("the same key in sibling objects is no repeat") {
  CHECK(duplicate_error(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 3}, {"k": 4}]})").empty());
  const nlohmann::json parsed =
      nlohmann::json::parse(R"({"a": {"k": 1}, "b": [1, {"k": 2}]})", moeplan::refuse_duplicate_keys("f"));
  CHECK(parsed["b"][1]["k"] == 2);  // the callback keeps every value
}

TEST_CASE("nesting past 128 levels is refused with its key path; 128 levels are read") {
  // 1 object, then 127 lists inside "a": 128 levels open at the innermost, the limit itself.
  const std::string at_limit = R"({"a": )" + std::string(127, '[') + std::string(127, ']') + "}";
  CHECK(duplicate_error(at_limit).empty());
  // One more list: the 129th level opens at a[0]...[0] with 127 indices.
  std::string path = "a";
  for (int level = 0; level < 127; ++level) path += "[0]";
  const std::string message = duplicate_error(R"({"a": )" + std::string(128, '[') + std::string(128, ']') + "}");
  CHECK(message.find("expected at most 128 levels of nested lists and objects (docs/budgets.md)") != std::string::npos);
  CHECK(
      message.starts_with("plan.json: " + path.substr(0, 80) + "... (" + std::to_string(path.size()) + " characters)"));
}
