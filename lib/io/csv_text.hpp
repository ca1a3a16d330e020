#pragma once
// The one CSV writer: every text cell of a CSV file the toolkit writes goes through csv_field, so a
// reader that follows RFC 4180 reads back exactly the text written.
#include <string>
#include <vector>

namespace moeplan {

// `text` as one RFC 4180 field: bare when it holds no ',', '"', CR or LF and does not start or end with
// a blank (which some readers trim), else in double quotes with every '"' doubled.
std::string csv_field(const std::string& text);

// The fields joined by ',' and ended by "\n"; each is written as it is (numbers) or already csv_field.
std::string csv_line(const std::vector<std::string>& fields);

}  // namespace moeplan
