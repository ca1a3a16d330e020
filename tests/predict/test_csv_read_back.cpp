// The one CSV writer read back by the runs reader's RFC 4180 splitter: every field comes back whole.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "io/csv_text.hpp"
#include "predict/measured_runs.hpp"

TEST_CASE("csv_field: ids and reasons with ',' and '\"' come back exactly through split_csv_line") {
  const std::vector<std::string> values = {"plain", "a,b", "say \"hi\"", "\"", ",", "", " padded ", "x\"\",y"};
  std::vector<std::string> fields;
  for (const std::string& value : values) fields.push_back(moeplan::csv_field(value));
  std::string line = moeplan::csv_line(fields);
  line.pop_back();  // the reader takes a line without its "\n"
  CHECK(moeplan::predict::split_csv_line(line) == values);
  // By hand: a quote doubles and the field is quoted; a plain field stays bare.
  CHECK(moeplan::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(moeplan::csv_field("plain") == "plain");
}
