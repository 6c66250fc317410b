// The SVG writer (api/picture/svg.h): escaping, well-formed documents that render, the width
// estimate and the helpers labels are laid out with; and compare's chart (comparison_chart.h).
#include "api/picture/svg.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "api/picture/comparison_chart.h"
#include "tests/api/picture/svg_check.h"

namespace placer::picture {
namespace svg_test {

using placer::testing::pictureTestDir;
using placer::testing::readText;
using placer::testing::rendersAsPng;
using placer::testing::wellFormedXml;
using placer::testing::writeText;

TEST(Svg, EscapesMarkupQuotesControlCharactersAndBrokenUtf8) {
  EXPECT_EQ(xmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xmlEscape("x\x01y"), "x\xEF\xBF\xBDy");
  EXPECT_EQ(xmlEscape("\xC3\xA9t\xC3"), "\xC3\xA9t\xEF\xBF\xBD");  // é kept, a cut sequence replaced
  EXPECT_EQ(xmlEscape("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(xmlEscape("/encoder/layer.0"), "/encoder/layer.0");
}

TEST(Svg, ADocumentWithHostileTextIsWellFormedAndRenders) {
  const auto dir = pictureTestDir("svg-hostile");
  Svg svg(300, 120, "title with </title> & \"quotes\"");
  svg.hatchPattern("h\"x", "#888", "#fff");
  svg.rect(10, 10, 100, 40, "url(#h\"x)", "#000", 1, "tooltip <b>&</b>", 3);
  svg.line(0, 0, 300, 120, "#f00", 2, "4,2");
  svg.polygon({0, 0, 10, 0, 5, 8}, "#00f");
  svg.text(20, 80, "]]> <!-- \x02 \xFF --> &amp;",
           {.size = 14, .anchor = "start", .bold = true, .rotate = -30});
  const std::string text = svg.str();
  EXPECT_EQ(text.find("</title> &"), std::string::npos);
  writeText(dir / "hostile.svg", text);
  EXPECT_TRUE(wellFormedXml(dir / "hostile.svg"));
  EXPECT_TRUE(rendersAsPng(dir / "hostile.svg"));
  std::filesystem::remove_all(dir);
}

TEST(Svg, TextWidthGrowsWithTheTextAndFitTextCutsToTheWidth) {
  EXPECT_GT(textWidth("WWWW", 12), textWidth("iiii", 12));
  EXPECT_NEAR(textWidth("abc", 24), 2 * textWidth("abc", 12), 1e-9);
  EXPECT_GT(textWidth("abc", 12, true), textWidth("abc", 12));
  // At least half an em per average letter: an estimate below the real width would let labels overlap.
  EXPECT_GE(textWidth("placement", 10), 9 * 0.5 * 10);
  const std::string fitted = fitText("/encoder/layer.0/attention/self/MatMul", 80, 12);
  EXPECT_LE(textWidth(fitted, 12), 80);
  EXPECT_EQ(fitted.substr(fitted.size() - 3), "\xE2\x80\xA6");
  EXPECT_EQ(fitText("short", 200, 12), "short");
  EXPECT_EQ(fitText("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 30, 12).size() % 2,
            1u);  // whole characters + "…"
}

TEST(Svg, TicksAreRoundAndCoverTheRange) {
  const std::vector<double> fifths{0, 0.2, 0.4, 0.6, 0.8, 1.0}, unit = niceTicks(0, 1, 5);
  ASSERT_EQ(unit.size(), fifths.size());
  for (std::size_t i = 0; i < unit.size(); ++i) {
    EXPECT_NEAR(unit[i], fifths[i], 1e-12);
  }
  const auto ticks = niceTicks(0, 37, 4);
  EXPECT_EQ(ticks.front(), 0);
  EXPECT_GE(ticks.back(), 30);
  EXPECT_LE(ticks.size(), 6u);
  EXPECT_EQ(formatBytes(1.5e6), "1.5 MB");
  EXPECT_EQ(formatNumber(0.5), "0.5");
  EXPECT_EQ(formatTime(0.0123, secondsUnit(0.05)), "12.3 ms");
  EXPECT_EQ(secondsUnit(2e-5).scale, 1e6);
}

ComparisonChart madeUpChart(int models, int algorithms) {
  ComparisonChart chart{"max-load per model & algorithm <relative>", "ms", {}};
  for (int m = 0; m < models; ++m) {
    ChartGroup group{"model_" + std::to_string(m) + (m % 3 == 0 ? "_with_a_long_name/encoder" : ""), {}};
    for (int a = 0; a < algorithms; ++a) {
      double value = 10 + m + 3.0 * a * (m % 4);
      if ((m + a) % 7 == 6) value = std::numeric_limits<double>::infinity();
      if (a == 2 && m == 1) value = std::nan("");
      if (a == 1 && m == 2) value = 100;  // 8x the best: above the axis's cap
      group.values.push_back({"algo-" + std::to_string(a), value});
    }
    chart.groups.push_back(group);
  }
  return chart;
}

TEST(ComparisonChart, IsWellFormedAndRendersFromOneToThirtyModels) {
  const auto dir = pictureTestDir("chart");
  for (auto [models, algorithms] : {std::pair{1, 1}, {12, 8}, {30, 8}}) {
    const std::string svg = comparisonChartSvg(madeUpChart(models, algorithms));
    const auto path = dir / ("chart-" + std::to_string(models) + "x" + std::to_string(algorithms) + ".svg");
    writeText(path, svg);
    EXPECT_TRUE(wellFormedXml(path)) << path;
    EXPECT_TRUE(rendersAsPng(path)) << path;
    EXPECT_NE(svg.find("&lt;relative&gt;"), std::string::npos);                        // the title, escaped
    EXPECT_NE(svg.find("algo-" + std::to_string(algorithms - 1)), std::string::npos);  // the legend
    if (models >= 3) {
      EXPECT_NE(svg.find("failed"), std::string::npos);
      EXPECT_NE(svg.find(">8.33<"), std::string::npos);  // the clipped bar's ratio (100 / 12) is written
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(ComparisonChart, BarsAreRelativeToTheBestOfEachModel) {
  ComparisonChart chart{"t", "s", {{"m", {{"a", 2}, {"b", 3}, {"c", 2.5}}}}};
  const std::string svg = comparisonChartSvg(chart);
  EXPECT_NE(svg.find("b: 3 s, 1.5x the best"), std::string::npos);
  EXPECT_NE(svg.find("c: 2.5 s, 1.25x the best"), std::string::npos);
  EXPECT_NE(svg.find("best 2 s"), std::string::npos);
  ComparisonChart empty{"nothing", "", {}};
  EXPECT_NE(comparisonChartSvg(empty).find("no results"), std::string::npos);
}

}  // namespace svg_test
}  // namespace placer::picture
