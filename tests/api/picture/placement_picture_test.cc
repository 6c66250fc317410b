// The pictures of a placement (api/picture/): the operator graph's DOT text (graphviz accepts it, the
// stages, the crossing tensors and the legend are in it), the rule that collapses a large graph into
// boxes, graphviz run from PATH (its failures and its absence), and the timeline.
#include <cstdlib>
#include <set>

#include <gtest/gtest.h>

#include "api/picture/graph_boxes.h"
#include "api/picture/graphviz.h"
#include "api/picture/placement_graph.h"
#include "api/picture/timeline.h"
#include "core/evaluate.h"
#include "core/synthetic.h"
#include "tests/api/picture/svg_check.h"
#include "tests/graph_builder.h"

namespace placer::picture {
namespace placement_picture_test {

using placer::testing::GraphBuilder;
using placer::testing::pictureTestDir;
using placer::testing::writeText;

// A chain of `n` operators named like an ONNX export ("/encoder/layer.3/attention/MatMul_17"), split
// evenly over the devices, each tensor of cost 0.5 and 1000 bytes.
Problem scopedChain(int n, DeviceSet devices) {
  GraphBuilder b(devices);
  for (int i = 0; i < n; ++i) {
    const std::string part = i % 3 == 0 ? "attention" : i % 3 == 1 ? "mlp" : "norm";
    b.node(1.0 + (i % 7), 10, 0,
           "/encoder/layer." + std::to_string(i / 20) + "/" + part + "/Op_" + std::to_string(i));
    if (i > 0) b.edge(i - 1, i, 0.5);
  }
  Problem problem = b.build();
  for (auto [e, end] = boost::edges(problem.graph); e != end; ++e)
    problem.graph[*e].bytes = 1000;
  problem.nets = buildNets(problem.graph);
  return problem;
}

PlacementView evenView(const Problem& problem, bool seconds) {
  PlacementView view;
  view.title = "chain <& \"quoted\">";
  view.problem = &problem;
  const int n = static_cast<int>(boost::num_vertices(problem.graph));
  const int devices = problem.devices.count();
  for (int v = 0; v < n; ++v) {
    view.device_of.push_back(v * devices / n);
    view.stage_of.push_back(v * devices / n);
  }
  view.eval = evaluateThroughput(problem, view.device_of);
  view.seconds = seconds;
  return view;
}

TEST(PlacementGraph, DotOfASmallGraphParsesWithGraphvizAndMarksStagesAndCrossingTensors) {
  const Problem problem = scopedChain(60, DeviceSet{3, 1e18, 1});
  const PlacementView view = evenView(problem, false);
  const std::string dot = placementDot(view);
  const auto dir = pictureTestDir("graph-small");
  writeText(dir / "small.dot", dot);
  EXPECT_TRUE(placer::testing::dotAccepts(dir / "small.dot"));
  EXPECT_EQ(dot.find("peripheries=2"), std::string::npos);  // 60 operators: none collapsed
  for (int stage = 0; stage < 4; ++stage) {
    EXPECT_NE(dot.find("subgraph cluster_" + std::to_string(stage) + "_" + std::to_string(stage)),
              std::string::npos);
  }
  EXPECT_NE(dot.find("cpu 0"), std::string::npos);
  EXPECT_NE(dot.find("label=\"cost 0.5, 1 KB\""), std::string::npos);  // a workload: the transfer cost
  EXPECT_NE(dot.find("BOTTLENECK"), std::string::npos);
  EXPECT_NE(dot.find("chain &lt;&amp; &quot;quoted&quot;&gt;"), std::string::npos);  // the title, escaped
  // Three crossings of a chain over four devices, drawn red.
  std::size_t red = 0;
  for (std::size_t at = dot.find("\", penwidth=2"); at != std::string::npos;
       at = dot.find("\", penwidth=2", at + 1))
    ++red;
  EXPECT_EQ(red, 3u);
}

TEST(PlacementGraph, AModelsCrossingTensorsAreLabelledInBytes) {
  const Problem problem = scopedChain(10, DeviceSet{2, 1e18, 0});
  const std::string dot = placementDot(evenView(problem, true));
  EXPECT_NE(dot.find("label=\"1 KB\""), std::string::npos);
}

TEST(GraphBoxes, TwoThousandOperatorsFitInTheBoxesEachInExactlyOne) {
  const Problem problem = scopedChain(2000, DeviceSet{4, 1e18, 0});
  const PlacementView view = evenView(problem, false);
  for (std::size_t max_boxes : {10u, 40u, 90u}) {
    const GraphBoxes boxes = graphBoxes(problem.graph, view.stage_of, 300, max_boxes);
    EXPECT_TRUE(boxes.collapsed);
    EXPECT_LE(boxes.boxes.size(), max_boxes);
    EXPECT_GE(boxes.boxes.size(), max_boxes / 2);  // the budget is used, not wasted
    std::vector<int> seen(2000, 0);
    for (std::size_t b = 0; b < boxes.boxes.size(); ++b) {
      for (Vertex v : boxes.boxes[b].members) {
        ++seen[v];
        EXPECT_EQ(boxes.box_of[v], static_cast<int>(b));
        EXPECT_EQ(boxes.boxes[b].group, view.stage_of[v]);  // a box never spans two stages
      }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 2000);
  }
  // Boxes follow the name scopes: with 90 boxes, each of the 100 layers' parts is whole or in runs.
  const GraphBoxes boxes = graphBoxes(problem.graph, view.stage_of, 300, 90);
  EXPECT_EQ(boxes.boxes.front().scope.rfind("encoder/layer.", 0), 0u);
  const std::string dot = placementDot(view);
  const auto dir = pictureTestDir("graph-large");
  writeText(dir / "large.dot", dot);
  EXPECT_TRUE(placer::testing::dotAccepts(dir / "large.dot"));
  EXPECT_NE(dot.find("double-bordered box"), std::string::npos);  // the legend says what a box is
}

TEST(PlacementGraph, ARandomGraphsTangleOfBoxEdgesIsDrawnAsCrossingsPerPairOfStages) {
  SyntheticOptions options;
  options.nodes = 2000;
  options.seed = 3;
  auto problem = makeSyntheticProblem(options);
  ASSERT_TRUE(problem.hasValue()) << problem.status().message();
  const PlacementView view = evenView(*problem, false);
  const std::string dot = placementDot(view);
  EXPECT_NE(dot.find("too many edges to draw"), std::string::npos);
  std::size_t drawn = 0;
  for (std::size_t at = dot.find(" -> b"); at != std::string::npos; at = dot.find(" -> b", at + 1))
    ++drawn;
  EXPECT_LE(drawn, 90u + 6u);  // the boxes' invisible order edges and a crossing per pair of stages
  const auto dir = pictureTestDir("graph-random");
  writeText(dir / "random.dot", dot);
  EXPECT_TRUE(placer::testing::dotAccepts(dir / "random.dot"));
}

TEST(GraphBoxes, NamesWithoutScopesAreCutIntoRuns) {
  GraphBuilder b(DeviceSet{2, 1e18, 0});
  for (int i = 0; i < 500; ++i) {
    b.node(1, 1);
    if (i > 0) b.edge(i - 1, i, 1);
  }
  const Problem problem = b.build();
  std::vector<int> group(500, 0);
  const GraphBoxes boxes = graphBoxes(problem.graph, group, 300, 16);
  EXPECT_EQ(boxes.boxes.size(), 16u);
  for (const GraphBox& box : boxes.boxes)
    EXPECT_TRUE(box.run);
  EXPECT_EQ(nameScope("/encoder/layer.0/attention/MatMul"),
            (std::vector<std::string>{"encoder", "layer.0", "attention"}));
  EXPECT_EQ(nameScope("bert.encoder.weight"), (std::vector<std::string>{"bert", "encoder"}));
  EXPECT_TRUE(nameScope("MatMul_3").empty());
}

TEST(Graphviz, LaysOutDotAndReportsItsErrorsAndItsAbsence) {
  auto svg = renderDotSvg("digraph { a -> b }");
  ASSERT_TRUE(svg.hasValue()) << svg.status().message();
  EXPECT_NE(svg->find("<svg"), std::string::npos);
  auto broken = renderDotSvg("digraph { a -> }");
  ASSERT_FALSE(broken.hasValue());
  EXPECT_EQ(broken.status().code(), StatusCode::Internal);
  EXPECT_NE(broken.status().message().find("syntax error"), std::string::npos) << broken.status().message();
  const std::string path = std::getenv("PATH");
  ::setenv("PATH", "/nonexistent-dir", 1);
  auto missing = renderDotSvg("digraph { a -> b }");
  ::setenv("PATH", path.c_str(), 1);
  ASSERT_FALSE(missing.hasValue());
  EXPECT_EQ(missing.status().code(), StatusCode::Unsupported);
  EXPECT_NE(missing.status().message().find("not on PATH"), std::string::npos);
}

TEST(Timeline, ScheduleSettlesIntoTheMaxLoadAndTheChartNamesTheBottleneck) {
  const Problem problem = scopedChain(40, DeviceSet{4, 1e18, 0});
  PlacementView view = evenView(problem, false);
  const Timeline timeline = pipelineTimeline(view, 4);
  ASSERT_EQ(timeline.devices.size(), 4u);
  EXPECT_DOUBLE_EQ(timeline.period, view.eval.max_load);
  const auto k = static_cast<std::size_t>(
      std::find(timeline.devices.begin(), timeline.devices.end(), timeline.bottleneck) -
      timeline.devices.begin());
  for (int m = 1; m < 4; ++m) {  // the bottleneck runs back to back
    EXPECT_NEAR(timeline.slot_start[k][m] - timeline.slot_start[k][m - 1], view.eval.max_load, 1e-9);
  }
  for (const TimelineSegment& s : timeline.segments) {
    EXPECT_LE(s.end, timeline.end + 1e-9);
  }
  const std::string svg = timelineSvg(view, 4);
  EXPECT_NE(svg.find("bottleneck: " + deviceName(problem.devices, timeline.bottleneck)), std::string::npos);
  EXPECT_NE(svg.find("period = max-load = "), std::string::npos);
  EXPECT_NE(svg.find("time (time units)"), std::string::npos);
  const auto dir = pictureTestDir("timeline");
  writeText(dir / "timeline.svg", svg);
  EXPECT_TRUE(placer::testing::wellFormedXml(dir / "timeline.svg"));
  EXPECT_TRUE(placer::testing::rendersAsPng(dir / "timeline.svg"));
}

}  // namespace placement_picture_test
}  // namespace placer::picture
