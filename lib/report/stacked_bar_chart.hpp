#pragma once
// Horizontal stacked bars, one per category (a layout), split into named segments (memory terms,
// step-time terms), with an optional marker per bar and vertical limit lines.
#include <optional>
#include <string>
#include <vector>

#include "report/chart_frame.hpp"

namespace moeplan::report {

struct BarSegment {
  std::string label;
  std::string colour;
};

struct StackedBar {
  std::string label;
  std::vector<double> values;    // one per segment of the chart, in its order
  std::optional<double> marker;  // a tick across the bar, e.g. the step total after overlap
  bool highlighted = false;
};

struct StackedBarChart {
  std::string title;
  std::string value_title;
  std::string unit;  // appended to values in tooltips and totals
  int decimals = 1;
  std::vector<BarSegment> segments;
  std::vector<StackedBar> bars;
  std::string marker_label;           // the legend's name for the markers
  std::vector<ReferenceLine> limits;  // vertical lines on the value axis
  double width = 620;
};

// A chart with its titles and value format; segments and bars are added by the caller.
StackedBarChart titled_bar_chart(std::string title, std::string value_title, std::string unit, int decimals);

// The chart as an <svg> element; its height follows the number of bars.
std::string stacked_bar_svg(const StackedBarChart& chart);

}  // namespace moeplan::report
