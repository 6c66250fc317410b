// --svg, --dot and --timeline on the command line (issue 32): `partition` on a bundled workload and
// `place` on a bundled model write pictures that are well-formed, render (rsvg-convert) and parse
// (graphviz); without graphviz --svg writes the DOT text beside and says so; a run that fails writes
// none of its outputs; clashing paths and a timeline of a latency objective are usage errors.
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/api/picture/svg_check.h"
#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace picture_cli_test {

const std::string kWorkload = "throughput-inputs/OperatorGraphs/bert_l-3_inference.json";

TEST_F(CliTest, PartitionDrawsTheGraphItsDotAndTheTimeline) {
  const fs::path svg = work_ / "graph.svg", dot = work_ / "graph.dot", timeline = work_ / "timeline.svg";
  RunResult r = run({"partition", workloadPath(kWorkload).string(), "-q", "-o", (work_ / "out.json").string(),
                     "--svg", svg.string(), "--dot", dot.string(), "--timeline", timeline.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(fs::exists(work_ / "out.json"));
  EXPECT_TRUE(wellFormedXml(svg));
  EXPECT_TRUE(rendersAsPng(svg));
  EXPECT_TRUE(dotAccepts(dot));
  EXPECT_TRUE(wellFormedXml(timeline));
  EXPECT_TRUE(rendersAsPng(timeline));
  const std::string graph = readText(svg), text = readText(dot), chart = readText(timeline);
  EXPECT_NE(text.find("bert_l-3_inference.json on 3 accelerator(s)"), std::string::npos);
  EXPECT_NE(text.find("BOTTLENECK"), std::string::npos);
  EXPECT_NE(text.find("label=\"cost "), std::string::npos);  // a workload's crossings: their transfer cost
  EXPECT_NE(graph.find("stage 1"), std::string::npos);       // laid out by dot, clusters and all
  EXPECT_NE(chart.find("bottleneck: accelerator "), std::string::npos);
  EXPECT_NE(chart.find("time (time units)"), std::string::npos);
}

TEST_F(CliTest, PlaceDrawsTheModelsGraphInBytesAndItsTimelineInSeconds) {
  const fs::path svg = work_ / "r50.svg", dot = work_ / "r50.dot", timeline = work_ / "r50-timeline.svg";
  RunResult r =
      run({"place", model("resnet50_light.onnx"), "-q", "--report", (work_ / "report.json").string(), "--svg",
           svg.string(), "--dot", dot.string(), "--timeline", timeline.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(wellFormedXml(svg));
  EXPECT_TRUE(rendersAsPng(svg));
  EXPECT_TRUE(dotAccepts(dot));
  EXPECT_TRUE(wellFormedXml(timeline));
  EXPECT_TRUE(rendersAsPng(timeline));
  const std::string text = readText(dot), chart = readText(timeline);
  EXPECT_NE(text.find(" MB\"]"), std::string::npos);  // a crossing tensor's bytes
  EXPECT_TRUE(chart.find("time (ms)") != std::string::npos ||
              chart.find("time (\xC2\xB5s)") != std::string::npos);
}

TEST_F(CliTest, WithoutGraphvizSvgWritesTheDotTextBesideAndSaysSo) {
  const std::string path = std::getenv("PATH");
  ::setenv("PATH", "/nonexistent-onnx-placer-test", 1);
  RunResult r = run({"partition", workloadPath(kWorkload).string(), "-o", (work_ / "out.json").string(),
                     "--svg", (work_ / "graph.svg").string()});
  ::setenv("PATH", path.c_str(), 1);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("not on PATH"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("graph.dot"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(work_ / "graph.svg"));
  EXPECT_TRUE(dotAccepts(work_ / "graph.dot"));
}

TEST_F(CliTest, ARunWhosePictureCannotBeWrittenLeavesNoOutput) {
  RunResult r =
      run({"partition", workloadPath(kWorkload).string(), "-q", "-o", (work_ / "out.json").string(), "--svg",
           (work_ / "graph.svg").string(), "--timeline", (work_ / "missing-dir" / "timeline.svg").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--timeline"), std::string::npos) << r.err;
  EXPECT_TRUE(workFiles().empty());
}

TEST_F(CliTest, ClashingPicturePathsAndALatencyTimelineAreUsageErrors) {
  const std::string same = (work_ / "same.svg").string();
  RunResult r = run({"partition", workloadPath(kWorkload).string(), "--svg", same, "--timeline", same});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("name the same file"), std::string::npos) << r.err;
  r = run({"place", model("resnet50_light.onnx"), "--report", same, "--svg", same});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("name the same file"), std::string::npos) << r.err;
  r = run({"partition", workloadPath(kWorkload).string(), "--objective", "latency", "--timeline", same});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--timeline"), std::string::npos) << r.err;
  EXPECT_TRUE(workFiles().empty());
  r = run({"partition", "--help"});
  EXPECT_NE(r.out.find("--timeline FILE.svg"), std::string::npos);
  r = run({"place", "--help"});
  EXPECT_NE(r.out.find("--svg FILE.svg"), std::string::npos);
}

}  // namespace picture_cli_test
}  // namespace placer::testing
