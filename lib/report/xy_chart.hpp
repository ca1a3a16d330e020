#pragma once
// Line and scatter charts on two numeric axes: series drawn as lines, points or both, reference lines
// (an SLO, a limit, the moment memory binds) and called-out points (the chosen plan).
#include <string>
#include <vector>

#include "report/chart_frame.hpp"

namespace moeplan::report {

struct Datum {
  double x = 0;
  double y = 0;
  std::string label;   // names the point: its data-label and the start of its tooltip
  std::string detail;  // the rest of the tooltip
};

struct Series {
  std::string label;
  std::string colour;
  std::vector<Datum> data;
  bool line = true;
  bool points = false;
  bool hollow = false;  // points drawn as rings
  bool dashed = false;
  double radius = 4;
  std::string css_class = "series";
};

struct Callout {
  Datum datum;
  std::string text;
  std::string colour;
};

struct XyChart {
  std::string title;
  AxisSpec x;
  AxisSpec y;
  std::vector<Series> series;
  std::vector<ReferenceLine> references;
  std::vector<Callout> callouts;
  double width = 620;
  double height = 400;
};

// A chart with its title and axis titles; series, lines and callouts are added by the caller.
XyChart titled_chart(std::string title, std::string x_title, std::string y_title);
// A series drawn as a line only, and one drawn as points only.
Series line_series(std::string label, std::string colour, std::string css_class);
Series point_series(std::string label, std::string colour, std::string css_class, double radius = 4);

// The chart as an <svg> element.
std::string xy_chart_svg(const XyChart& chart);

}  // namespace moeplan::report
