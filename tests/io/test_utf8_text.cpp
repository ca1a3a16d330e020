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

TEST_CASE("only RFC 3629's well-formed sequences are UTF-8: no overlong form, surrogate or point past U+10FFFF") {
  CHECK(moeplan::valid_utf8("\xc2\x85"));                // U+0085 in its two bytes
  CHECK_FALSE(moeplan::valid_utf8("V8\xc0\x85"));        // U+0005 overlong in two bytes (a JSON writer refuses it)
  CHECK_FALSE(moeplan::valid_utf8("\xe0\x80\xaf"));      // '/' overlong in three bytes
  CHECK_FALSE(moeplan::valid_utf8("\xed\xa0\x80"));      // U+D800, a UTF-16 surrogate
  CHECK(moeplan::valid_utf8("\xf4\x8f\xbf\xbf"));        // U+10FFFF, the last code point
  CHECK_FALSE(moeplan::valid_utf8("\xf4\x90\x80\x80"));  // U+110000
  CHECK_FALSE(moeplan::single_line_text("a\xc0\x8a"));   // an overlong '\n' is no way round the line check
}
