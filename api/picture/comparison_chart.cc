#include "api/picture/comparison_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "api/picture/svg.h"

namespace placer::picture {
namespace {

constexpr const char* kSeriesColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
                                         "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#bab0ac"};
constexpr double kTitleSize = 18, kLabelSize = 12, kSmallSize = 10, kPlotHeight = 300;
constexpr double kMaxCap = 4;  // ratios above are drawn to the top of the axis, with their value written
constexpr double kLabelAngle = 40;
constexpr double kMaxPlotWidth = 1300;  // wider rows of bars wrap

bool chartFailed(double value) {
  return std::isnan(value) || std::isinf(value);
}

double groupBest(const ChartGroup& group) {
  double best = std::numeric_limits<double>::infinity();
  for (const ChartSeries& s : group.values) {
    if (!chartFailed(s.value)) best = std::min(best, s.value);
  }
  return best;
}

double ratioToBest(double value, double best) {
  if (value == best) return 1;
  if (best > 0) return value / best;
  return std::numeric_limits<double>::infinity();  // the best is 0 (or negative) and this is not
}

struct ChartLayout {
  std::vector<std::string> algorithms;  // legend order: first appearance
  double bar = 0, gap = 0, group = 0;   // widths
  double left = 0, top = 0, plot_width = 0, bottom = 0, width = 0, height = 0;
  std::size_t per_row = 1;  // groups per row of bars: many models wrap onto several rows
  double row_height = 0;    // a row's plot and its labels
  double y_max = 1;         // the axis's top ratio
  bool rotated = false;
  std::vector<std::string> labels;  // per group
  std::vector<double> legend_rows;  // the legend's lines' baselines
};

std::string groupLabel(const ChartGroup& group, const std::string& unit, bool one_line) {
  const double best = groupBest(group);
  if (std::isinf(best)) return one_line ? group.model + " (every run failed)" : "every run failed";
  const std::string value = "best " + formatNumber(best, 4) + (unit.empty() ? "" : " " + unit);
  return one_line ? group.model + " (" + value + ")" : value;
}

double legendEntryWidth(const std::string& algorithm) {
  return 16 + textWidth(algorithm, kLabelSize) + 18;
}

ChartLayout layOut(const ComparisonChart& chart) {
  ChartLayout l;
  double largest = 1;
  for (const ChartGroup& g : chart.groups) {
    const double best = groupBest(g);
    for (const ChartSeries& s : g.values) {
      if (std::find(l.algorithms.begin(), l.algorithms.end(), s.algorithm) == l.algorithms.end())
        l.algorithms.push_back(s.algorithm);
      if (!chartFailed(s.value) && !std::isinf(best)) largest = std::max(largest, ratioToBest(s.value, best));
    }
  }
  const std::size_t series = std::max<std::size_t>(1, l.algorithms.size());
  const std::size_t groups = std::max<std::size_t>(1, chart.groups.size());
  // Headroom above the tallest bar for its label, up to a round tick.
  const double target = std::max(1.2, std::min(largest, kMaxCap) * 1.08);
  const std::vector<double> ticks = niceTicks(0, target, 5);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : target;
  l.y_max = std::ceil(target / step - 1e-9) * step;
  l.bar = std::clamp(360.0 / static_cast<double>(series * groups), 14.0, 28.0);
  l.gap = std::max(16.0, l.bar);
  l.group = l.bar * static_cast<double>(series) + l.gap;
  double widest = 0, widest_second = 0;
  for (const ChartGroup& g : chart.groups) {
    widest = std::max(widest, textWidth(g.model, kLabelSize));
    widest_second = std::max(widest_second, textWidth(groupLabel(g, chart.unit, false), kSmallSize));
  }
  l.rotated = std::max(widest, widest_second) > l.group - 6;
  for (const ChartGroup& g : chart.groups)
    l.labels.push_back(l.rotated ? groupLabel(g, chart.unit, true) : g.model);
  double longest = 0;
  for (const std::string& label : l.labels)
    longest = std::max(longest, textWidth(label, kLabelSize));
  const double cosine = std::cos(kLabelAngle * std::numbers::pi / 180),
               sine = std::sin(kLabelAngle * std::numbers::pi / 180);
  l.left = 70;  // tick labels and the axis title
  if (l.rotated) l.left = std::max(l.left, longest * cosine - l.group / 2 + 20);
  l.per_row = std::clamp<std::size_t>(static_cast<std::size_t>(kMaxPlotWidth / l.group), 1, groups);
  l.plot_width = l.group * static_cast<double>(l.per_row);
  double width = std::max({l.left + l.plot_width + 40, textWidth(chart.title, kTitleSize, true) + 40, 480.0});
  // The legend, wrapped to the width.
  double x = 0, y = 40 + kTitleSize + 6;
  l.legend_rows.push_back(y);
  for (const std::string& a : l.algorithms) {
    const double w = legendEntryWidth(a);
    if (x > 0 && l.left + x + w > width - 10) {
      x = 0;
      y += 20;
      l.legend_rows.push_back(y);
    }
    x += w;
  }
  l.top = y + 30;
  l.bottom = l.rotated ? longest * sine + 30 : 48;
  l.width = width;
  l.row_height = kPlotHeight + l.bottom + 20;
  l.height = l.top + l.row_height * static_cast<double>((groups + l.per_row - 1) / l.per_row);
  return l;
}

// The y of `ratio` in the row whose plot starts at `top`.
double yOf(const ChartLayout& l, double top, double ratio) {
  return top + kPlotHeight * (1 - std::min(ratio, l.y_max) / l.y_max);
}

void drawAxes(Svg& svg, const ChartLayout& l, double top, std::size_t groups) {
  const double bottom = top + kPlotHeight, right = l.left + l.group * static_cast<double>(groups);
  for (double t : niceTicks(0, l.y_max, 5)) {
    const double y = yOf(l, top, t);
    svg.line(l.left, y, right, y, "#e6e6e6", 1);
    svg.text(l.left - 6, y + 4, formatNumber(t, 3), {.size = kLabelSize, .anchor = "end"});
  }
  svg.line(l.left, top, l.left, bottom, "#444444", 1);
  svg.line(l.left, bottom, right, bottom, "#444444", 1);
  svg.line(l.left, yOf(l, top, 1), right, yOf(l, top, 1), "#333333", 1.2, "5,4");
  svg.text(right + 4, yOf(l, top, 1) + 4, "best", {.size = kSmallSize, .fill = "#333333"});
  svg.text(l.left - 46, top + kPlotHeight / 2, "value / best of the model (1 = best, lower is better)",
           {.size = kLabelSize, .anchor = "middle", .rotate = -90});
}

void drawLegend(Svg& svg, const ChartLayout& l) {
  double x = 0;
  std::size_t row = 0;
  for (std::size_t i = 0; i < l.algorithms.size(); ++i) {
    const double w = legendEntryWidth(l.algorithms[i]);
    if (x > 0 && l.left + x + w > l.width - 10) {
      x = 0;
      ++row;
    }
    const double y = l.legend_rows[row];
    svg.rect(l.left + x, y - 10, 12, 12, kSeriesColors[i % 10]);
    svg.text(l.left + x + 16, y, l.algorithms[i], {.size = kLabelSize});
    x += w;
  }
}

void drawBar(Svg& svg, const ChartLayout& l, double top, const ChartSeries& s, double best, double x,
             std::size_t color, const std::string& unit) {
  const double bottom = top + kPlotHeight;
  const double center = x + l.bar / 2;
  if (chartFailed(s.value) || std::isinf(best)) {
    svg.rect(x + 1, bottom - 14, l.bar - 2, 14, "#dddddd", "#888888", 1,
             s.algorithm + ": failed or no answer");
    svg.text(center, bottom - 3, "\xC3\x97",
             {.size = kLabelSize, .anchor = "middle", .fill = "#b00000", .bold = true});
    svg.text(center + 4, bottom - 18, "failed",
             {.size = kSmallSize, .anchor = "start", .fill = "#b00000", .rotate = -90});
    return;
  }
  const double ratio = ratioToBest(s.value, best);
  const double y = yOf(l, top, ratio);
  const std::string tooltip = s.algorithm + ": " + formatNumber(s.value, 6) +
                              (unit.empty() ? "" : " " + unit) + ", " + formatNumber(ratio, 4) + "x the best";
  svg.rect(x + 1, y, l.bar - 2, bottom - y, kSeriesColors[color % 10], "none", 0, tooltip);
  if (ratio > l.y_max) {  // a break across the clipped bar
    svg.polygon({x, y + 10, x + l.bar, y + 4, x + l.bar, y + 8, x, y + 14}, "#ffffff");
  }
  const std::string label = ratio == 1 ? "1" : formatNumber(ratio, 3);
  svg.text(center + 4, y - 4, label, {.size = kSmallSize, .anchor = "start", .rotate = -90});
}

}  // namespace

std::string comparisonChartSvg(const ComparisonChart& chart) {
  const ChartLayout l = layOut(chart);
  Svg svg(l.width, l.height, chart.title);
  svg.text(l.width / 2, 28, chart.title, {.size = kTitleSize, .anchor = "middle", .bold = true});
  drawLegend(svg, l);
  for (std::size_t g = 0; g < chart.groups.size(); ++g) {
    const ChartGroup& group = chart.groups[g];
    const double best = groupBest(group);
    const std::size_t row = g / l.per_row, column = g % l.per_row;
    const double top = l.top + l.row_height * static_cast<double>(row), bottom = top + kPlotHeight;
    if (column == 0) drawAxes(svg, l, top, std::min(l.per_row, chart.groups.size() - g));
    const double x0 = l.left + l.group * static_cast<double>(column) + l.gap / 2;
    for (const ChartSeries& s : group.values) {
      const auto slot = static_cast<std::size_t>(
          std::find(l.algorithms.begin(), l.algorithms.end(), s.algorithm) - l.algorithms.begin());
      drawBar(svg, l, top, s, best, x0 + l.bar * static_cast<double>(slot), slot, chart.unit);
    }
    const double center = x0 + l.bar * static_cast<double>(l.algorithms.size()) / 2;
    if (l.rotated) {
      svg.text(center, bottom + 16, l.labels[g],
               {.size = kLabelSize, .anchor = "end", .rotate = -kLabelAngle});
    } else {
      svg.text(center, bottom + 18, l.labels[g], {.size = kLabelSize, .anchor = "middle"});
      svg.text(center, bottom + 34, groupLabel(group, chart.unit, false),
               {.size = kSmallSize, .anchor = "middle", .fill = "#555555"});
    }
  }
  if (chart.groups.empty()) {
    drawAxes(svg, l, l.top, 1);
    svg.text(l.left + 10, l.top + kPlotHeight / 2, "no results", {.size = kLabelSize});
  }
  return svg.str();
}

}  // namespace placer::picture
