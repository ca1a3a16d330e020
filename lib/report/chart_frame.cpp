#include "report/chart_frame.hpp"

#include <algorithm>

#include "report/palette.hpp"

namespace moeplan::report {

namespace {

constexpr double kTitleSize = 15;
constexpr double kLegendSize = 12;
constexpr double kLegendRowHeight = 18;
constexpr double kLegendSymbolWidth = 22;
constexpr double kTickSize = 11;

void draw_symbol(SvgCanvas& canvas, Point at, const LegendEntry& entry) {
  const Point left{at.x, at.y - 4};
  const Point right{at.x + kLegendSymbolWidth - 6, at.y - 4};
  const Point middle{at.x + (kLegendSymbolWidth - 6) / 2, at.y - 4};
  switch (entry.symbol) {
    case LegendSymbol::line:
    case LegendSymbol::dashed_line:
      canvas.line(left, right, outlined(entry.colour, 2.5, entry.symbol == LegendSymbol::dashed_line));
      break;
    case LegendSymbol::point: canvas.circle(middle, 4, filled(entry.colour)); break;
    case LegendSymbol::hollow_point: canvas.circle(middle, 4, Paint{"white", entry.colour, 1.5, false}); break;
    case LegendSymbol::box: canvas.rect({at.x + 2, at.y - 10}, 12, 12, filled(entry.colour)); break;
  }
}

// Where each legend entry goes: left to right, wrapping to a new row at the canvas edge.
std::vector<Point> legend_positions(const std::vector<LegendEntry>& entries, double canvas_width) {
  std::vector<Point> positions;
  Point at{kLeftMargin, 44};
  for (const LegendEntry& entry : entries) {
    const double width = kLegendSymbolWidth + text_width(entry.label.size(), kLegendSize) + 16;
    if (at.x + width > canvas_width - kRightMargin && at.x > kLeftMargin) at = {kLeftMargin, at.y + kLegendRowHeight};
    positions.push_back(at);
    at.x += width;
  }
  return positions;
}

}  // namespace

double text_width(std::size_t characters, double size) { return static_cast<double>(characters) * size * 0.56; }

double title_and_legend_height(const std::vector<LegendEntry>& entries, double canvas_width) {
  const std::vector<Point> positions = legend_positions(entries, canvas_width);
  return positions.empty() ? 44 : positions.back().y + kLegendRowHeight;
}

double draw_title_and_legend(SvgCanvas& canvas, std::string_view title, const std::vector<LegendEntry>& entries) {
  canvas.text({kLeftMargin, 22}, title, bold(text_style(kTitleSize)), classed("chart-title"));
  const std::vector<Point> positions = legend_positions(entries, canvas.width());
  canvas.open_group("legend");
  for (std::size_t index = 0; index < entries.size(); ++index) {
    draw_symbol(canvas, positions[index], entries[index]);
    canvas.text({positions[index].x + kLegendSymbolWidth, positions[index].y}, entries[index].label,
                text_style(kLegendSize), classed("legend-label"));
  }
  canvas.close_group();
  return title_and_legend_height(entries, canvas.width());
}

Scale axis_scale(const AxisSpec& spec, double data_low, double data_high, double pixel_start, double pixel_end) {
  double low = spec.low.value_or(data_low);
  double high = spec.high.value_or(data_high);
  if (spec.logarithmic) return Scale::logarithmic(low, high, pixel_start, pixel_end);
  if (spec.low && spec.high) return Scale::fixed(low, high, pixel_start, pixel_end);
  if (spec.from_zero && !spec.low) low = std::min(low, 0.0);
  return Scale::linear(low, high, pixel_start, pixel_end);
}

void draw_reference(SvgCanvas& canvas, const PlotArea& area, const Scale& axis, const ReferenceLine& line) {
  const Paint paint = outlined(line.colour, 1.5, true);
  const Mark mark{"reference", line.label, line.label};
  const double at = axis.pixel(line.value);
  if (line.vertical) {
    canvas.line({at, area.top}, {at, area.bottom()}, paint, mark);
    // Read upwards along the line: it takes no width from the data beside it. Left of the line, unless
    // that would put it over the axis labels.
    const double baseline = at - area.left < 16 ? at + 13 : at - 5;
    canvas.text({baseline, area.top + 4}, line.label, rotated(text_style(11, Anchor::end, line.colour), -90));
  } else {
    canvas.line({area.left, at}, {area.right(), at}, paint, mark);
    canvas.text({area.right() - 4, at - 4}, line.label, text_style(11, Anchor::end, line.colour));
  }
}

void draw_vertical_title(SvgCanvas& canvas, const PlotArea& area, std::string_view title) {
  canvas.text({16, area.top + area.height / 2}, title, rotated(text_style(12, Anchor::middle), -90),
              classed("axis-title"));
}

void draw_axes(SvgCanvas& canvas, const PlotArea& area, const Scale& x, const Scale& y, const AxisSpec& x_spec,
               const AxisSpec& y_spec) {
  canvas.open_group("axes");
  for (const double tick : x.ticks()) {
    const double pixel = x.pixel(tick);
    canvas.line({pixel, area.top}, {pixel, area.bottom()}, outlined(kGridColour));
    canvas.line({pixel, area.bottom()}, {pixel, area.bottom() + 5}, outlined(kAxisColour));
    canvas.text({pixel, area.bottom() + 18}, x.label(tick), text_style(kTickSize, Anchor::middle),
                classed("tick-label"));
  }
  for (const double tick : y.ticks()) {
    const double pixel = y.pixel(tick);
    canvas.line({area.left, pixel}, {area.right(), pixel}, outlined(kGridColour));
    canvas.line({area.left - 5, pixel}, {area.left, pixel}, outlined(kAxisColour));
    canvas.text({area.left - 8, pixel + 4}, y.label(tick), text_style(kTickSize, Anchor::end), classed("tick-label"));
  }
  canvas.line({area.left, area.bottom()}, {area.right(), area.bottom()}, outlined(kAxisColour));
  canvas.line({area.left, area.top}, {area.left, area.bottom()}, outlined(kAxisColour));
  canvas.text({area.left + area.width / 2, area.bottom() + 38}, x_spec.title, text_style(12, Anchor::middle),
              classed("axis-title"));
  draw_vertical_title(canvas, area, y_spec.title);
  canvas.close_group();
}

}  // namespace moeplan::report
