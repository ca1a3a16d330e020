#pragma once
// What every chart around its data shares: the title, the legend, the plot area and the axes with
// their grid lines, ticks, tick labels and titles.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/scale.hpp"
#include "report/svg.hpp"

namespace moeplan::report {

struct AxisSpec {
  std::string title;
  bool logarithmic = false;
  bool from_zero = true;      // a linear axis starts at zero unless the data go below it
  std::optional<double> low;  // fixed ends; otherwise the data's
  std::optional<double> high;
};

struct PlotArea {
  double left = 0;
  double top = 0;
  double width = 0;
  double height = 0;

  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

// A line across the plot at one value: an SLO, a memory limit, the moment the KV cache binds.
struct ReferenceLine {
  bool vertical = false;
  double value = 0;
  std::string label;
  std::string colour;
};

enum class LegendSymbol { line, dashed_line, point, hollow_point, box };

struct LegendEntry {
  std::string label;
  std::string colour;
  LegendSymbol symbol = LegendSymbol::line;
};

// Space on each side of the plot for tick labels and axis titles, in pixels.
inline constexpr double kLeftMargin = 72;
inline constexpr double kRightMargin = 24;
inline constexpr double kBottomMargin = 48;

// Draws the title and the legend rows under it, wrapped to the canvas width; returns where the plot may start.
double draw_title_and_legend(SvgCanvas& canvas, std::string_view title, const std::vector<LegendEntry>& entries);
// Where draw_title_and_legend would end, for charts whose height depends on it.
double title_and_legend_height(const std::vector<LegendEntry>& entries, double canvas_width);

// The scale of one axis over the data's [low, high], honouring the spec's fixed ends and zero.
Scale axis_scale(const AxisSpec& spec, double data_low, double data_high, double pixel_start, double pixel_end);

// Grid lines at the ticks, the two axis lines, tick labels and axis titles.
void draw_axes(SvgCanvas& canvas, const PlotArea& area, const Scale& x, const Scale& y, const AxisSpec& x_spec,
               const AxisSpec& y_spec);

// A dashed reference line with its label; `axis` is the x scale for a vertical line, the y scale otherwise.
void draw_reference(SvgCanvas& canvas, const PlotArea& area, const Scale& axis, const ReferenceLine& line);

// An axis title along the left edge, read bottom to top.
void draw_vertical_title(SvgCanvas& canvas, const PlotArea& area, std::string_view title);

// Pixels a label of `characters` takes at `size`: an estimate for a proportional sans-serif face.
double text_width(std::size_t characters, double size);

}  // namespace moeplan::report
