#include <doctest/doctest.h>

#include <string>

#include "io/input_error.hpp"
#include "io/json_fields.hpp"

using moeplan::InputError;
using moeplan::JsonFields;

namespace {

const nlohmann::json kDocument = nlohmann::json::parse(R"({
  "name": "plan", "count": 3, "share": 0.5, "ready": true, "mode": "decode",
  "roles": [{"gpus": 8}, 4], "empty": [], "nothing": null
})");

template <class Read>
std::string error_of(Read read) {
  try {
    read(JsonFields(kDocument, "plan.json", ""));
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("typed reads return the values written") {
  const JsonFields fields(kDocument, "plan.json", "");
  CHECK(fields.text("name") == "plan");
  CHECK(fields.integer("count", 1, 8) == 3);
  CHECK(fields.number("share", 0, 1) == 0.5);
  CHECK(fields.positive("share") == 0.5);
  CHECK(fields.flag("ready"));
  CHECK(fields.choice("mode", {"prefill", "decode"}) == 1);
  CHECK(fields.is_null("nothing"));
  CHECK(fields.element(fields.array("roles")[0], 0, "roles").integer("gpus", 1, 8) == 8);
  CHECK(fields.array("empty").empty());
}

TEST_CASE("each failure names the file, the key path, what was expected and what was found") {
  CHECK(error_of([](const JsonFields& fields) { fields.integer("count", 4, 8); }) ==
        "plan.json: count: expected an integer in [4, 8], got 3");
  CHECK(error_of([](const JsonFields& fields) { fields.number("share", 0.75, 1); }) ==
        "plan.json: share: expected a number in [0.75, 1], got 0.5");
  CHECK(error_of([](const JsonFields& fields) {
          fields.choice("mode", {"aggregated", "prefill"});
        }) == "plan.json: mode: expected one of aggregated, prefill, got \"decode\"");
  CHECK(error_of([](const JsonFields& fields) { fields.text("count"); }) ==
        "plan.json: count: expected a string, got 3");
  CHECK(error_of([](const JsonFields& fields) { fields.flag("missing"); }) ==
        "plan.json: missing: expected true or false (the key is missing)");
  CHECK(error_of([](const JsonFields& fields) { fields.non_empty_array("empty"); }) ==
        "plan.json: empty: expected a non-empty list");
  CHECK(error_of([](const JsonFields& fields) { fields.element(fields.array("roles")[1], 1, "roles"); }) ==
        "plan.json: roles[1]: expected a JSON object");
  CHECK(error_of([](const JsonFields& fields) { fields.object("roles"); }) ==
        "plan.json: roles: expected a JSON object");
}
