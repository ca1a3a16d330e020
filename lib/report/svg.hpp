#pragma once
// The SVG primitives every chart is drawn with: one canvas that appends escaped elements to a string.
#include <string>
#include <string_view>
#include <vector>

namespace moeplan::report {

struct Point {
  double x = 0;
  double y = 0;
};

// Text for element content and attribute values: &, <, >, " and ' replaced by entities.
std::string escape_xml(std::string_view text);

// How a shape is filled and outlined; colours are CSS colour strings.
struct Paint {
  std::string fill = "none";
  std::string stroke = "none";
  double stroke_width = 1;
  bool dashed = false;
};

Paint filled(std::string colour);
Paint outlined(std::string colour, double width = 1, bool dashed = false);

enum class Anchor { start, middle, end };

struct TextStyle {
  double size = 12;
  Anchor anchor = Anchor::start;
  std::string colour = "#222";
  bool bold = false;
  double rotation = 0;  // degrees, about the anchor point
};

TextStyle text_style(double size, Anchor anchor = Anchor::start, std::string colour = "#222");
TextStyle bold(TextStyle style);
TextStyle rotated(TextStyle style, double degrees);

// What identifies a mark to a reader and to a test: its CSS class, the tooltip a browser shows on
// hover, and a data-label attribute naming the datum it draws.
struct Mark {
  std::string css_class;
  std::string tooltip;
  std::string data_label;
};

// A mark known by its CSS class alone.
Mark classed(std::string css_class);

class SvgCanvas {
 public:
  SvgCanvas(double width, double height, std::string_view description);

  void open_group(std::string_view css_class);
  void close_group();
  void rect(Point corner, double width, double height, const Paint& paint, const Mark& mark = {});
  void line(Point from, Point to, const Paint& paint, const Mark& mark = {});
  void polyline(const std::vector<Point>& points, const Paint& paint, const Mark& mark = {});
  void circle(Point centre, double radius, const Paint& paint, const Mark& mark = {});
  void text(Point anchor, std::string_view content, const TextStyle& style, const Mark& mark = {});

  double width() const { return width_; }
  // The finished <svg> element; groups left open are closed.
  std::string finish() const;

 private:
  void element(std::string_view name, const std::string& attributes, const Paint& paint, const Mark& mark);

  double width_;
  double height_;
  std::string description_;
  std::string body_;
  int open_groups_ = 0;
};

}  // namespace moeplan::report
