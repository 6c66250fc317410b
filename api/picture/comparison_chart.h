// compare's chart (issue 32), Fig. 8 of Tarnawski et al. 2020: per model, each algorithm's value
// relative to the best value any algorithm found for that model, as grouped bars (1.0 = best; lower
// is better: max-load or latency).
//
// Layout: the title, a legend of the algorithms (one colour each, wrapped to the chart's width), the
// y axis (the ratio, from 0, with a dashed line at 1 = best), one group of bars per model with the
// model's name and its best value in the chart's unit under it (names turned 40° when they are wider
// than their group). A failed run (+inf or NaN) is a grey "failed" mark instead of a bar; a ratio
// above the axis's cap (4×, or the largest ratio when smaller) is drawn to the top with a break and
// its value written. Each bar's tooltip gives the absolute value. Works for 1 to ~30 models and 1 to
// ~8 algorithms: bars keep a readable width and the groups wrap onto several rows of one scale.
#pragma once

#include <string>
#include <vector>

namespace placer::picture {

struct ChartSeries {
  std::string algorithm;
  double value;  // +inf or NaN: the run failed or gave no answer
};
struct ChartGroup {
  std::string model;
  std::vector<ChartSeries> values;
};
struct ComparisonChart {
  std::string title;
  std::string unit;  // of the values ("ms", "s", "units"); shown with each model's best value
  std::vector<ChartGroup> groups;
};

// The chart as an SVG document (well-formed XML, every name escaped).
std::string comparisonChartSvg(const ComparisonChart& chart);

}  // namespace placer::picture
