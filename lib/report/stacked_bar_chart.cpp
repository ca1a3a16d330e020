#include "report/stacked_bar_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "report/palette.hpp"

namespace moeplan::report {

namespace {

constexpr double kBarHeight = 22;
constexpr double kBarGap = 10;
constexpr double kLabelSize = 11;
constexpr double kLimitRowHeight = 13;

double bar_total(const StackedBar& bar) { return std::accumulate(bar.values.begin(), bar.values.end(), 0.0); }

std::vector<LegendEntry> legend_entries(const StackedBarChart& chart) {
  std::vector<LegendEntry> entries;
  for (const BarSegment& segment : chart.segments)
    entries.push_back({segment.label, segment.colour, LegendSymbol::box});
  const bool marked =
      std::any_of(chart.bars.begin(), chart.bars.end(), [](const StackedBar& bar) { return bar.marker.has_value(); });
  if (marked && !chart.marker_label.empty()) entries.push_back({chart.marker_label, kAxisColour, LegendSymbol::line});
  return entries;
}

// Room on the left for the longest category label, within half the chart.
double label_margin(const StackedBarChart& chart) {
  std::size_t longest = 0;
  for (const StackedBar& bar : chart.bars) longest = std::max(longest, bar.label.size());
  return std::clamp(text_width(longest, kLabelSize) + 16, kLeftMargin, chart.width / 2);
}

double largest_extent(const StackedBarChart& chart) {
  double largest = 0;
  for (const StackedBar& bar : chart.bars) largest = std::max({largest, bar_total(bar), bar.marker.value_or(0)});
  for (const ReferenceLine& limit : chart.limits) largest = std::max(largest, limit.value);
  return largest;
}

std::string value_text(const StackedBarChart& chart, double value) {
  return fmt::format("{:.{}f}{}", value, chart.decimals, chart.unit);
}

// Totals stand in a column right of the plot, clear of the limit lines that often pass near the bar ends.
void draw_bar(SvgCanvas& canvas, const StackedBarChart& chart, const StackedBar& bar, const Scale& scale,
              const PlotArea& area, double y) {
  canvas.open_group(bar.highlighted ? "bar highlighted" : "bar");
  canvas.text({scale.pixel(0) - 8, y + kBarHeight / 2 + 4}, bar.label,
              bar.highlighted ? bold(text_style(kLabelSize, Anchor::end, kHighlightColour))
                              : text_style(kLabelSize, Anchor::end),
              classed("category-label"));
  double start = 0;
  for (std::size_t index = 0; index < chart.segments.size() && index < bar.values.size(); ++index) {
    const double value = bar.values[index];
    if (value <= 0) continue;
    const double left = scale.pixel(start);
    const std::string tooltip =
        fmt::format("{}: {} {}", bar.label, chart.segments[index].label, value_text(chart, value));
    canvas.rect({left, y}, scale.pixel(start + value) - left, kBarHeight, filled(chart.segments[index].colour),
                Mark{"segment", tooltip, chart.segments[index].label});
    start += value;
  }
  canvas.text({area.right() + 6, y + kBarHeight / 2 + 4}, value_text(chart, start),
              text_style(10, Anchor::start, kAxisColour), classed("bar-total"));
  if (bar.marker) {
    const double x = scale.pixel(*bar.marker);
    canvas.line(
        {x, y - 3}, {x, y + kBarHeight + 3}, outlined(kAxisColour, 2.5),
        Mark{"marker", fmt::format("{}: {} {}", bar.label, chart.marker_label, value_text(chart, *bar.marker)), ""});
  }
  canvas.close_group();
}

void draw_value_axis(SvgCanvas& canvas, const StackedBarChart& chart, const Scale& scale, const PlotArea& area) {
  canvas.open_group("axes");
  for (const double tick : scale.ticks()) {
    const double x = scale.pixel(tick);
    canvas.line({x, area.top}, {x, area.bottom()}, outlined(kGridColour));
    canvas.text({x, area.bottom() + 18}, scale.label(tick), text_style(11, Anchor::middle), classed("tick-label"));
  }
  canvas.line({area.left, area.bottom()}, {area.right(), area.bottom()}, outlined(kAxisColour));
  canvas.text({area.left + area.width / 2, area.bottom() + 38}, chart.value_title, text_style(12, Anchor::middle),
              classed("axis-title"));
  canvas.close_group();
}

// Limit labels sit above the plot, one row each, so lines close together keep their labels apart.
void draw_limits(SvgCanvas& canvas, const StackedBarChart& chart, const Scale& scale, const PlotArea& area) {
  for (std::size_t index = 0; index < chart.limits.size(); ++index) {
    const ReferenceLine& limit = chart.limits[index];
    const double x = scale.pixel(limit.value);
    const double label_y = area.top - 4 - kLimitRowHeight * static_cast<double>(chart.limits.size() - 1 - index);
    canvas.line({x, label_y + 2}, {x, area.bottom()}, outlined(limit.colour, 1.5, true),
                Mark{"reference", limit.label, limit.label});
    const bool near_right = x > area.left + area.width * 0.8;
    canvas.text({near_right ? x - 3 : x + 3, label_y}, limit.label,
                text_style(11, near_right ? Anchor::end : Anchor::start, limit.colour));
  }
}

}  // namespace

StackedBarChart titled_bar_chart(std::string title, std::string value_title, std::string unit, int decimals) {
  StackedBarChart chart;
  chart.title = std::move(title);
  chart.value_title = std::move(value_title);
  chart.unit = std::move(unit);
  chart.decimals = decimals;
  return chart;
}

std::string stacked_bar_svg(const StackedBarChart& chart) {
  const std::vector<LegendEntry> legend = legend_entries(chart);
  const double top =
      title_and_legend_height(legend, chart.width) + 8 + kLimitRowHeight * static_cast<double>(chart.limits.size());
  const double height = top + static_cast<double>(chart.bars.size()) * (kBarHeight + kBarGap) + kBottomMargin;
  SvgCanvas canvas(chart.width, height, chart.title);
  draw_title_and_legend(canvas, chart.title, legend);
  const double left = label_margin(chart);
  const PlotArea area{left, top, chart.width - left - kRightMargin - 40, height - top - kBottomMargin};
  const Scale scale = Scale::linear(0, largest_extent(chart), area.left, area.right());
  draw_value_axis(canvas, chart, scale, area);
  double y = area.top + kBarGap / 2;
  for (const StackedBar& bar : chart.bars) {
    draw_bar(canvas, chart, bar, scale, area, y);
    y += kBarHeight + kBarGap;
  }
  draw_limits(canvas, chart, scale, area);
  return canvas.finish();
}

}  // namespace moeplan::report
