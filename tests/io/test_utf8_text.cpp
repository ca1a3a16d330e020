// Code points read from UTF-8, against the encodings of the Unicode standard worked out by hand.
#include <doctest/doctest.h>

#include "io/utf8_text.hpp"

TEST_CASE("a code point and its length in bytes, for one to four bytes") {
  // 'A' = 0x41; U+00E9 = C3 A9; U+2028 = E2 80 A8; U+20AC = E2 82 AC; U+1F600 = F0 9F 98 80.
  CHECK(moeplan::code_point_at("A!").value == 0x41);
  CHECK(moeplan::code_point_at("A!").length == 1);
  CHECK(moeplan::code_point_at("\xc3\xa9x").value == 0xe9);
  CHECK(moeplan::code_point_at("\xc3\xa9x").length == 2);
  CHECK(moeplan::code_point_at("\xe2\x80\xa8").value == 0x2028);
  CHECK(moeplan::code_point_at("\xe2\x82\xac").value == 0x20ac);
  CHECK(moeplan::code_point_at("\xe2\x82\xac").length == 3);
  CHECK(moeplan::code_point_at("\xf0\x9f\x98\x80").value == 0x1f600);
  CHECK(moeplan::code_point_at("\xf0\x9f\x98\x80").length == 4);
  CHECK(moeplan::code_point_at("").length == 0);
}
