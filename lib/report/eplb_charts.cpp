#include "report/eplb_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "eplb/metrics.hpp"
#include "report/palette.hpp"

namespace moeplan::report {

namespace {

// The three hottest experts of a layer sit side by side around the layer's x position.
constexpr double kHottestOffsets[] = {-0.22, 0.0, 0.22};
constexpr const char* kHottestNames[] = {"hottest expert", "second hottest", "third hottest"};

double layer_tokens(const std::vector<eplb::TokenCount>& counts) {
  return static_cast<double>(std::accumulate(counts.begin(), counts.end(), eplb::TokenCount{0}));
}

}  // namespace

std::vector<std::vector<double>> relative_gpu_loads(const eplb::LoadLog& log, const eplb::Placement& placement) {
  std::vector<std::vector<double>> loads;
  for (std::int64_t layer = 0; layer < log.num_layers; ++layer) {
    const std::vector<eplb::TokenCount> counts = log.layer_total(layer);
    std::vector<double> gpus =
        eplb::gpu_loads(counts, placement.physical_to_logical[static_cast<std::size_t>(layer)], placement.shape);
    const double mean = layer_tokens(counts) / static_cast<double>(gpus.size());
    for (double& load : gpus) load = mean > 0 ? load / mean : 1;
    loads.push_back(std::move(gpus));
  }
  return loads;
}

Heatmap load_heatmap(const std::vector<std::vector<double>>& loads, const std::string& title, double high) {
  Heatmap heatmap;
  heatmap.title = title;
  heatmap.row_title = "MoE layer";
  heatmap.column_title = "GPU";
  heatmap.value_title = "tokens / layer mean per GPU";
  heatmap.rows = loads.size();
  heatmap.columns = loads.empty() ? 0 : loads.front().size();
  heatmap.low = 1 / high;
  heatmap.high = high;
  heatmap.logarithmic = true;
  for (const std::vector<double>& row : loads) heatmap.values.insert(heatmap.values.end(), row.begin(), row.end());
  return heatmap;
}

XyChart balancedness_chart(const eplb::PlacementEvaluation& before, const eplb::PlacementEvaluation& after) {
  XyChart chart = titled_chart("Balancedness per MoE layer", "MoE layer", "balancedness (mean / max tokens per GPU)");
  chart.y.low = 0;
  chart.y.high = 1;
  Series bound = line_series("best possible (mean / lower bound)", "#000000", "bound");
  bound.dashed = true;
  Series previous = point_series("before", category_colour(1), "before", 2.5);
  Series placed = point_series("after", category_colour(0), "after", 2.5);
  previous.line = placed.line = true;
  for (std::size_t layer = 0; layer < after.layers.size(); ++layer) {
    const eplb::LayerEvaluation& figures = after.layers[layer];
    const auto x = static_cast<double>(layer);
    // balancedness x max_load is the mean; over the bound on the max it is the best balancedness reachable.
    const double best =
        figures.lower_bound > 0 ? std::min(1.0, figures.balancedness * figures.max_load / figures.lower_bound) : 1.0;
    bound.data.push_back({x, best, fmt::format("layer {}", layer), fmt::format("at most {:.4f}", best)});
    previous.data.push_back({x, before.layers[layer].balancedness, fmt::format("layer {}", layer),
                             fmt::format("before {:.4f}", before.layers[layer].balancedness)});
    placed.data.push_back(
        {x, figures.balancedness, fmt::format("layer {}", layer),
         fmt::format("after {:.4f}, max/bound {:.4f}", figures.balancedness, figures.max_over_bound)});
  }
  // The bound last: the placed line usually meets it, and would hide it.
  chart.series = {previous, placed, bound};
  return chart;
}

XyChart hottest_replicas_chart(const eplb::LoadLog& log, const eplb::PlacementEvaluation& after) {
  XyChart chart = titled_chart("Replicas of the hottest experts", "MoE layer", "replicas");
  std::vector<Series> ranks;
  for (std::size_t rank = 0; rank < std::size(kHottestNames); ++rank) {
    ranks.push_back(point_series(kHottestNames[rank], category_colour(rank), fmt::format("hottest-{}", rank + 1), 3.5));
  }
  for (std::size_t layer = 0; layer < after.layers.size(); ++layer) {
    const std::vector<eplb::TokenCount> counts = log.layer_total(static_cast<std::int64_t>(layer));
    const double total = layer_tokens(counts);
    const eplb::LayerEvaluation& figures = after.layers[layer];
    for (std::size_t rank = 0; rank < figures.hottest_experts.size() && rank < ranks.size(); ++rank) {
      const auto expert = static_cast<std::size_t>(figures.hottest_experts[rank]);
      const double share = total > 0 ? static_cast<double>(counts[expert]) / total : 0;
      const auto replicas = static_cast<double>(figures.hottest_replicas[rank]);
      ranks[rank].data.push_back(
          {static_cast<double>(layer) + kHottestOffsets[rank], replicas,
           fmt::format("layer {} expert {}", layer, expert),
           fmt::format("{:.2f}% of the layer's tokens, {:.0f} replicas", 100 * share, replicas)});
    }
  }
  chart.series = ranks;
  // Layers are whole numbers; half a layer of room each side keeps the outer points off the axes.
  chart.x.low = -0.5;
  chart.x.high = static_cast<double>(after.layers.size()) - 0.5;
  return chart;
}

}  // namespace moeplan::report
