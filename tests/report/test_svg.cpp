// The SVG primitives and the markup checker the other report tests rely on.
#include <doctest/doctest.h>

#include "markup.hpp"
#include "report/svg.hpp"

namespace moeplan::report {

using testing::find;
using testing::read_markup;

TEST_CASE("text and attributes are escaped") {
  CHECK(escape_xml("a<b & \"c\" > 'd'") == "a&lt;b &amp; &quot;c&quot; &gt; &#39;d&#39;");
  SvgCanvas canvas(100, 50, "a < b");
  canvas.text({1, 2}, "</svg><script>", text_style(10));
  const std::string svg = canvas.finish();
  CHECK(svg.find("<script>") == std::string::npos);
  CHECK(read_markup(svg).error.empty());
}

TEST_CASE("a canvas closes the groups left open and marks carry class, label and tooltip") {
  SvgCanvas canvas(200, 100, "test");
  canvas.open_group("outer");
  canvas.open_group("inner");
  canvas.circle({10, 20}, 3, filled("#123456"), Mark{"point", "tp1 · 12 tok/s", "tp1"});
  canvas.rect({0, 0}, 5, 6, outlined("#000", 2, true));
  const auto markup = read_markup(canvas.finish());
  REQUIRE(markup.error.empty());
  const auto circles = find(markup, "circle", "inner");
  REQUIRE(circles.size() == 1);
  CHECK(circles[0].attribute("cx") == "10.0");
  CHECK(circles[0].attribute("fill") == "#123456");
  CHECK(circles[0].attribute("data-label") == "tp1");
  CHECK(circles[0].has_class("point"));
  const auto titles = find(markup, "title");
  REQUIRE(titles.size() == 1);
  CHECK(titles[0].text == "tp1 · 12 tok/s");
  const auto rects = find(markup, "rect");
  REQUIRE(rects.size() == 1);
  CHECK(rects[0].attribute("stroke-dasharray") == "6 4");
  CHECK(rects[0].attribute("fill") == "none");
}

TEST_CASE("the checker finds tags out of order") {
  CHECK(read_markup("<svg><g></svg></g>").error == "</svg> closes <g>");
  CHECK(read_markup("<svg><g>").error == "<g> is never closed");
  CHECK(read_markup("<p>a<br>b</p>").error.empty());
  CHECK(testing::page_problems("<!DOCTYPE html><html><body><img src=\"x.png\"></body></html>") == "contains  src=");
}

}  // namespace moeplan::report
