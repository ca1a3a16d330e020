#include "report/svg.hpp"

#include <fmt/format.h>

namespace moeplan::report {

namespace {

// Tenths of a pixel are finer than any screen shows and keep the files small.
std::string coordinate(double value) { return fmt::format("{:.1f}", value); }

std::string paint_attributes(const Paint& paint) {
  std::string text = fmt::format(" fill=\"{}\"", escape_xml(paint.fill));
  if (paint.stroke != "none") {
    text += fmt::format(" stroke=\"{}\" stroke-width=\"{}\"", escape_xml(paint.stroke), coordinate(paint.stroke_width));
  }
  if (paint.dashed) text += " stroke-dasharray=\"6 4\"";
  return text;
}

std::string mark_attributes(const Mark& mark) {
  std::string text;
  if (!mark.css_class.empty()) text += fmt::format(" class=\"{}\"", escape_xml(mark.css_class));
  if (!mark.data_label.empty()) text += fmt::format(" data-label=\"{}\"", escape_xml(mark.data_label));
  return text;
}

const char* anchor_name(Anchor anchor) {
  switch (anchor) {
    case Anchor::start: return "start";
    case Anchor::middle: return "middle";
    case Anchor::end: return "end";
  }
  return "start";
}

}  // namespace

std::string escape_xml(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char character : text) {
    switch (character) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&#39;"; break;
      default: escaped += character;
    }
  }
  return escaped;
}

Paint filled(std::string colour) {
  Paint paint;
  paint.fill = std::move(colour);
  return paint;
}

Paint outlined(std::string colour, double width, bool dashed) {
  Paint paint;
  paint.stroke = std::move(colour);
  paint.stroke_width = width;
  paint.dashed = dashed;
  return paint;
}

TextStyle text_style(double size, Anchor anchor, std::string colour) {
  TextStyle style;
  style.size = size;
  style.anchor = anchor;
  style.colour = std::move(colour);
  return style;
}

TextStyle bold(TextStyle style) {
  style.bold = true;
  return style;
}

TextStyle rotated(TextStyle style, double degrees) {
  style.rotation = degrees;
  return style;
}

Mark classed(std::string css_class) {
  Mark mark;
  mark.css_class = std::move(css_class);
  return mark;
}

SvgCanvas::SvgCanvas(double width, double height, std::string_view description)
    : width_(width), height_(height), description_(description) {}

void SvgCanvas::open_group(std::string_view css_class) {
  body_ += fmt::format("<g class=\"{}\">", escape_xml(css_class));
  ++open_groups_;
}

void SvgCanvas::close_group() {
  if (open_groups_ == 0) return;
  body_ += "</g>";
  --open_groups_;
}

void SvgCanvas::element(std::string_view name, const std::string& attributes, const Paint& paint, const Mark& mark) {
  body_ += fmt::format("<{}{}{}{}", name, attributes, paint_attributes(paint), mark_attributes(mark));
  if (mark.tooltip.empty()) {
    body_ += "/>";
  } else {
    body_ += fmt::format("><title>{}</title></{}>", escape_xml(mark.tooltip), name);
  }
}

void SvgCanvas::rect(Point corner, double width, double height, const Paint& paint, const Mark& mark) {
  element("rect",
          fmt::format(" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"", coordinate(corner.x), coordinate(corner.y),
                      coordinate(width), coordinate(height)),
          paint, mark);
}

void SvgCanvas::line(Point from, Point to, const Paint& paint, const Mark& mark) {
  element("line",
          fmt::format(" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"", coordinate(from.x), coordinate(from.y),
                      coordinate(to.x), coordinate(to.y)),
          paint, mark);
}

void SvgCanvas::polyline(const std::vector<Point>& points, const Paint& paint, const Mark& mark) {
  std::string list;
  for (const Point& point : points)
    list += fmt::format("{}{},{}", list.empty() ? "" : " ", coordinate(point.x), coordinate(point.y));
  element("polyline", fmt::format(" points=\"{}\" stroke-linejoin=\"round\"", list), paint, mark);
}

void SvgCanvas::circle(Point centre, double radius, const Paint& paint, const Mark& mark) {
  element("circle",
          fmt::format(" cx=\"{}\" cy=\"{}\" r=\"{}\"", coordinate(centre.x), coordinate(centre.y), coordinate(radius)),
          paint, mark);
}

void SvgCanvas::text(Point anchor, std::string_view content, const TextStyle& style, const Mark& mark) {
  std::string attributes =
      fmt::format(" x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\" fill=\"{}\"", coordinate(anchor.x),
                  coordinate(anchor.y), coordinate(style.size), anchor_name(style.anchor), escape_xml(style.colour));
  if (style.bold) attributes += " font-weight=\"bold\"";
  if (style.rotation != 0) {
    attributes += fmt::format(" transform=\"rotate({} {} {})\"", coordinate(style.rotation), coordinate(anchor.x),
                              coordinate(anchor.y));
  }
  body_ += fmt::format("<text{}{}>{}</text>", attributes, mark_attributes(mark), escape_xml(content));
}

std::string SvgCanvas::finish() const {
  std::string closing;
  for (int group = 0; group < open_groups_; ++group) closing += "</g>";
  // Inline in HTML, the parser puts <svg> in the SVG namespace itself: no xmlns, so no URL in the file.
  return fmt::format(
      "<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"{2}\" font-family=\"sans-serif\">{3}{4}</svg>",
      coordinate(width_), coordinate(height_), escape_xml(description_), body_, closing);
}

}  // namespace moeplan::report
