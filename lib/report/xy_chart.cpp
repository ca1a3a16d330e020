#include "report/xy_chart.hpp"

#include <algorithm>
#include <limits>

namespace moeplan::report {

namespace {

struct Range {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();

  void add(double value, bool logarithmic) {
    if (logarithmic && value <= 0) return;  // a log axis cannot show it
    low = std::min(low, value);
    high = std::max(high, value);
  }
  bool empty() const { return low > high; }
};

struct Ranges {
  Range x;
  Range y;
};

Ranges data_ranges(const XyChart& chart) {
  Ranges ranges;
  for (const Series& series : chart.series) {
    for (const Datum& datum : series.data) {
      ranges.x.add(datum.x, chart.x.logarithmic);
      ranges.y.add(datum.y, chart.y.logarithmic);
    }
  }
  for (const ReferenceLine& reference : chart.references) {
    (reference.vertical ? ranges.x : ranges.y)
        .add(reference.value, reference.vertical ? chart.x.logarithmic : chart.y.logarithmic);
  }
  for (Range* range : {&ranges.x, &ranges.y}) {
    if (range->empty()) *range = {1, 1};
  }
  return ranges;
}

std::vector<LegendEntry> legend_entries(const XyChart& chart) {
  std::vector<LegendEntry> entries;
  for (const Series& series : chart.series) {
    if (series.label.empty()) continue;
    LegendSymbol symbol = series.dashed ? LegendSymbol::dashed_line : LegendSymbol::line;
    if (!series.line) symbol = series.hollow ? LegendSymbol::hollow_point : LegendSymbol::point;
    entries.push_back({series.label, series.colour, symbol});
  }
  return entries;
}

std::string tooltip(const Datum& datum) {
  return datum.detail.empty() ? datum.label : datum.label + ": " + datum.detail;
}

bool drawable(const Datum& datum, const XyChart& chart) {
  return !(chart.x.logarithmic && datum.x <= 0) && !(chart.y.logarithmic && datum.y <= 0);
}

class XyPainter {
 public:
  XyPainter(SvgCanvas& canvas, const XyChart& chart, const PlotArea& area, const Scale& x, const Scale& y)
      : canvas_(canvas), chart_(chart), area_(area), x_(x), y_(y) {}

  Point at(const Datum& datum) const { return {x_.pixel(datum.x), y_.pixel(datum.y)}; }

  void series(const Series& series) {
    canvas_.open_group(series.css_class);
    std::vector<Point> vertices;
    for (const Datum& datum : series.data) {
      if (drawable(datum, chart_)) vertices.push_back(at(datum));
    }
    if (series.line && vertices.size() > 1) {
      canvas_.polyline(vertices, outlined(series.colour, 2, series.dashed), Mark{"line", "", series.label});
    }
    if (series.points) {
      const Paint paint =
          series.hollow ? Paint{"white", series.colour, 1.5, false} : Paint{series.colour, "white", 0.5, false};
      for (const Datum& datum : series.data) {
        if (drawable(datum, chart_)) {
          canvas_.circle(at(datum), series.radius, paint, Mark{"point", tooltip(datum), datum.label});
        }
      }
    }
    canvas_.close_group();
  }

  void callout(const Callout& callout) {
    const Point point = at(callout.datum);
    canvas_.circle(point, 9, outlined(callout.colour, 2.5), Mark{"callout", callout.text, callout.datum.label});
    const bool near_right = point.x > area_.left + area_.width * 0.6;
    const double y = point.y < area_.top + 24 ? point.y + 24 : point.y - 14;
    canvas_.text({near_right ? point.x - 12 : point.x + 12, y}, callout.text,
                 bold(text_style(12, near_right ? Anchor::end : Anchor::start, callout.colour)));
  }

 private:
  SvgCanvas& canvas_;
  const XyChart& chart_;
  const PlotArea& area_;
  const Scale& x_;
  const Scale& y_;
};

}  // namespace

XyChart titled_chart(std::string title, std::string x_title, std::string y_title) {
  XyChart chart;
  chart.title = std::move(title);
  chart.x.title = std::move(x_title);
  chart.y.title = std::move(y_title);
  return chart;
}

Series line_series(std::string label, std::string colour, std::string css_class) {
  Series series;
  series.label = std::move(label);
  series.colour = std::move(colour);
  series.css_class = std::move(css_class);
  return series;
}

Series point_series(std::string label, std::string colour, std::string css_class, double radius) {
  Series series = line_series(std::move(label), std::move(colour), std::move(css_class));
  series.line = false;
  series.points = true;
  series.radius = radius;
  return series;
}

std::string xy_chart_svg(const XyChart& chart) {
  SvgCanvas canvas(chart.width, chart.height, chart.title);
  const double top = draw_title_and_legend(canvas, chart.title, legend_entries(chart)) + 6;
  const PlotArea area{kLeftMargin, top, chart.width - kLeftMargin - kRightMargin, chart.height - top - kBottomMargin};
  const Ranges ranges = data_ranges(chart);
  const Scale x = axis_scale(chart.x, ranges.x.low, ranges.x.high, area.left, area.right());
  const Scale y = axis_scale(chart.y, ranges.y.low, ranges.y.high, area.bottom(), area.top);
  draw_axes(canvas, area, x, y, chart.x, chart.y);
  XyPainter painter(canvas, chart, area, x, y);
  for (const ReferenceLine& reference : chart.references) {
    draw_reference(canvas, area, reference.vertical ? x : y, reference);
  }
  for (const Series& series : chart.series) painter.series(series);
  for (const Callout& callout : chart.callouts) painter.callout(callout);
  return canvas.finish();
}

}  // namespace moeplan::report
