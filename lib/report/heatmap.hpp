#pragma once
// A grid of coloured cells (rows x columns, e.g. MoE layers x GPUs) on a diverging colour scale
// centred on a reference value, with a colour bar as its legend.
#include <cstddef>
#include <string>
#include <vector>

namespace moeplan::report {

struct Heatmap {
  std::string title;
  std::string row_title;
  std::string column_title;
  std::string value_title;
  std::size_t rows = 0;
  std::size_t columns = 0;
  std::vector<double> values;  // [rows][columns], row-major
  double low = 0;              // the colour scale's ends; values outside are clamped
  double centre = 1;           // drawn white: below it blue, above it red
  double high = 2;
  bool logarithmic = false;  // colours spaced by ratio, so half and double the centre are equally strong
  double width = 620;
  double height = 360;
};

// The colour of a value on the heatmap's scale, as #rrggbb.
std::string heatmap_colour(const Heatmap& heatmap, double value);

// The chart as an <svg> element.
std::string heatmap_svg(const Heatmap& heatmap);

}  // namespace moeplan::report
