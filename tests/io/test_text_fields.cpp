// CSV cells: blanks trimmed, whole decimal integers only.
#include <doctest/doctest.h>

#include "io/text_fields.hpp"

using namespace moeplan;

TEST_CASE("a cell's text loses its surrounding blanks, and reads as an integer only when whole") {
  CHECK(trimmed(" \t12,3 \r") == "12,3");
  CHECK(trimmed(" \t\r").empty());
  std::int64_t value = 0;
  CHECK(parse_integer_field(" 4096\r", value));
  CHECK(value == 4096);
  CHECK(parse_integer_field("-3", value));
  CHECK(value == -3);
  for (const char* bad : {"", "  ", "4x", "nan", "1.5", "99999999999999999999"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_integer_field(bad, value));
  }
}
