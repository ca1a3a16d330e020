#include "report/heatmap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "report/chart_frame.hpp"
#include "report/palette.hpp"
#include "report/scale.hpp"

namespace moeplan::report {

namespace {

struct Rgb {
  double red;
  double green;
  double blue;
};

constexpr Rgb kCold{33, 102, 172};
constexpr Rgb kNeutral{247, 247, 247};
constexpr Rgb kHot{178, 24, 43};
constexpr double kColourBarWidth = 14;
constexpr int kColourBarSteps = 48;

Rgb mix(const Rgb& from, const Rgb& to, double fraction) {
  return {from.red + (to.red - from.red) * fraction, from.green + (to.green - from.green) * fraction,
          from.blue + (to.blue - from.blue) * fraction};
}

std::string hex(const Rgb& colour) {
  return fmt::format("#{:02x}{:02x}{:02x}", static_cast<int>(std::lround(colour.red)),
                     static_cast<int>(std::lround(colour.green)), static_cast<int>(std::lround(colour.blue)));
}

// Every `stride`-th row or column index is labelled, a round stride at least wide enough that labels never overlap.
std::size_t label_stride(std::size_t count, double pixels, double pixels_per_label) {
  const double needed = static_cast<double>(count) * pixels_per_label / std::max(pixels, 1.0);
  if (needed <= 1) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(needed)));
  for (const double multiple : {1.0, 2.0, 5.0}) {
    if (multiple * magnitude >= needed) return static_cast<std::size_t>(multiple * magnitude);
  }
  return static_cast<std::size_t>(10 * magnitude);
}

void draw_index_labels(SvgCanvas& canvas, const Heatmap& heatmap, const PlotArea& area, double cell_width,
                       double cell_height) {
  canvas.open_group("axes");
  const std::size_t column_stride = label_stride(heatmap.columns, area.width, 36);
  for (std::size_t column = 0; column < heatmap.columns; column += column_stride) {
    canvas.text({area.left + (static_cast<double>(column) + 0.5) * cell_width, area.bottom() + 16},
                fmt::format("{}", column), text_style(11, Anchor::middle), classed("tick-label"));
  }
  const std::size_t row_stride = label_stride(heatmap.rows, area.height, 16);
  for (std::size_t row = 0; row < heatmap.rows; row += row_stride) {
    canvas.text({area.left - 6, area.top + (static_cast<double>(row) + 0.5) * cell_height + 4}, fmt::format("{}", row),
                text_style(11, Anchor::end), classed("tick-label"));
  }
  canvas.text({area.left + area.width / 2, area.bottom() + 36}, heatmap.column_title, text_style(12, Anchor::middle),
              classed("axis-title"));
  draw_vertical_title(canvas, area, heatmap.row_title);
  canvas.close_group();
}

// Where a value sits between two others, on the heatmap's linear or logarithmic axis.
double fraction_between(const Heatmap& heatmap, double value, double from, double to) {
  if (heatmap.logarithmic) return std::log(value / from) / std::log(to / from);
  return (value - from) / (to - from);
}

// The value at a fraction of the way from low to high, the inverse of fraction_between.
double value_at(const Heatmap& heatmap, double fraction) {
  if (heatmap.logarithmic) return heatmap.low * std::pow(heatmap.high / heatmap.low, fraction);
  return heatmap.low + fraction * (heatmap.high - heatmap.low);
}

void draw_colour_bar(SvgCanvas& canvas, const Heatmap& heatmap, const PlotArea& area) {
  canvas.open_group("colour-bar");
  const double left = area.right() + 16;
  const double step_height = area.height / kColourBarSteps;
  for (int step = 0; step < kColourBarSteps; ++step) {
    const double value = value_at(heatmap, 1 - (step + 0.5) / kColourBarSteps);
    canvas.rect({left, area.top + step * step_height}, kColourBarWidth, step_height + 0.5,
                filled(heatmap_colour(heatmap, value)));
  }
  const Scale scale = heatmap.logarithmic ? Scale::logarithmic(heatmap.low, heatmap.high, 0, 1)
                                          : Scale::linear(heatmap.low, heatmap.high, 0, 1);
  for (const double tick : scale.ticks()) {
    if (tick < heatmap.low || tick > heatmap.high) continue;
    const double y = area.bottom() - fraction_between(heatmap, tick, heatmap.low, heatmap.high) * area.height;
    canvas.text({left + kColourBarWidth + 4, y + 4}, scale.label(tick), text_style(10), classed("tick-label"));
  }
  canvas.text({left + kColourBarWidth + 36, area.top + area.height / 2}, heatmap.value_title,
              rotated(text_style(11, Anchor::middle), 90), classed("axis-title"));
  canvas.close_group();
}

}  // namespace

std::string heatmap_colour(const Heatmap& heatmap, double value) {
  const double clamped = std::clamp(value, heatmap.low, heatmap.high);
  if (clamped < heatmap.centre)
    return hex(mix(kCold, kNeutral, fraction_between(heatmap, clamped, heatmap.low, heatmap.centre)));
  if (heatmap.high <= heatmap.centre) return hex(kNeutral);
  return hex(mix(kNeutral, kHot, fraction_between(heatmap, clamped, heatmap.centre, heatmap.high)));
}

std::string heatmap_svg(const Heatmap& heatmap) {
  SvgCanvas canvas(heatmap.width, heatmap.height, heatmap.title);
  const double top = draw_title_and_legend(canvas, heatmap.title, {}) + 4;
  const PlotArea area{kLeftMargin, top, heatmap.width - kLeftMargin - 90, heatmap.height - top - kBottomMargin};
  const double cell_width = area.width / static_cast<double>(std::max<std::size_t>(heatmap.columns, 1));
  const double cell_height = area.height / static_cast<double>(std::max<std::size_t>(heatmap.rows, 1));
  canvas.open_group("cells");
  for (std::size_t row = 0; row < heatmap.rows; ++row) {
    for (std::size_t column = 0; column < heatmap.columns; ++column) {
      // A hair of overlap hides the seams anti-aliasing leaves between neighbouring cells.
      canvas.rect(
          {area.left + static_cast<double>(column) * cell_width, area.top + static_cast<double>(row) * cell_height},
          cell_width + 0.3, cell_height + 0.3,
          filled(heatmap_colour(heatmap, heatmap.values[row * heatmap.columns + column])));
    }
  }
  canvas.close_group();
  canvas.rect({area.left, area.top}, area.width, area.height, outlined(kAxisColour));
  draw_index_labels(canvas, heatmap, area, cell_width, cell_height);
  draw_colour_bar(canvas, heatmap, area);
  return canvas.finish();
}

}  // namespace moeplan::report
