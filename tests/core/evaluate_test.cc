// The evaluator: hand-computed loads on tiny graphs, and the human-expert splits of Table 1.
#include "core/evaluate.h"

#include <gtest/gtest.h>

#include <ostream>

#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace evaluate_test {

TEST(Evaluate, OutputIsPaidOncePerReceivingDevice) {
  // a feeds b and c; b, c on accelerator 1, a on accelerator 0: a's output crosses once.
  GraphBuilder g({2, 100, 1});
  int a = g.node(1, 10), b = g.node(2, 20), c = g.node(3, 30);
  g.edge(a, b, 0.5).edge(a, c, 0.5);
  Evaluation e = evaluateThroughput(g.build(), {0, 1, 1});
  EXPECT_DOUBLE_EQ(e.devices[0].load, 1 + 0.5);
  EXPECT_DOUBLE_EQ(e.devices[1].load, 0.5 + 2 + 3);
  EXPECT_DOUBLE_EQ(e.max_load, 5.5);
  // b on the CPU instead: accelerator 1 still receives a's output once, accelerator 0 sends it once,
  // and the CPU pays no communication.
  e = evaluateThroughput(g.build(), {0, 2, 1});
  EXPECT_DOUBLE_EQ(e.devices[0].load, 1.5);
  EXPECT_DOUBLE_EQ(e.devices[1].load, 3.5);
  EXPECT_DOUBLE_EQ(e.devices[2].load, 20);
}

TEST(Evaluate, DifferingEdgeCostsAreSeparateTransfers) {
  GraphBuilder g({3, 100, 0});
  int a = g.node(1, 1), b = g.node(1, 1), c = g.node(1, 1);
  g.edge(a, b, 0.25).edge(a, c, 0.75);
  Evaluation e = evaluateThroughput(g.build(), {0, 1, 2});
  EXPECT_DOUBLE_EQ(e.devices[0].comm_out, 1.0);
  EXPECT_DOUBLE_EQ(e.devices[1].comm_in, 0.25);
  EXPECT_DOUBLE_EQ(e.devices[2].comm_in, 0.75);
}

TEST(Evaluate, OverlapModesCombineComputeAndCommunication) {
  EXPECT_DOUBLE_EQ(acceleratorLoad(Overlap::None, 5, 2, 3), 10);
  EXPECT_DOUBLE_EQ(acceleratorLoad(Overlap::Max, 5, 2, 4), 6);
  EXPECT_DOUBLE_EQ(acceleratorLoad(Overlap::Duplex, 5, 2, 4), 5);
  EXPECT_DOUBLE_EQ(acceleratorLoad(Overlap::Duplex, 1, 2, 4), 4);
}

TEST(Evaluate, ViolationsAreNamed) {
  GraphBuilder g({2, 10, 1});
  int a = g.node(1, 1, 8), b = g.node(1, 1, 8), c = g.node(1, 1);
  g.edge(a, b, 1).edge(b, c, 1).unsupported(c).colocate(a, 7).colocate(c, 7);
  std::vector<std::string> v = splitViolations(g.build(), {0, 0, 0});
  ASSERT_EQ(v.size(), 2u);  // memory 16 > 10 and c unsupported; a and c together is fine
  std::string all;
  for (const auto& s : v)
    all += s + "\n";
  EXPECT_NE(all.find("not supported"), std::string::npos) << all;
  EXPECT_NE(all.find("more than"), std::string::npos) << all;
  // a and c split, and the pipeline a(0) -> b(1) -> c(0) is cyclic.
  v = splitViolations(g.build(), {0, 1, 2});
  all.clear();
  for (const auto& s : v)
    all += s + "\n";
  EXPECT_NE(all.find("separated"), std::string::npos) << all;
  v = splitViolations(g.build(), {0, 1, 0});
  all.clear();
  for (const auto& s : v)
    all += s + "\n";
  EXPECT_NE(all.find("cycle"), std::string::npos) << all;
}

struct Expert {
  const char* workload;
  const char* split;
  double published;  // Table 1, expert column (as printed)
  double half_unit;  // half a unit in the last printed digit
};

// The parameter as the test's name shows it (GoogleTest would print its bytes, a pointer among them).
void PrintTo(const Expert& c, std::ostream* os) {
  *os << c.workload;
}

class ExpertSplit : public ::testing::TestWithParam<Expert> {};

TEST_P(ExpertSplit, EvaluatesToTable1) {
  const Expert& e = GetParam();
  Problem problem = loadWorkload(std::string("throughput-inputs/LayerGraphs/") + e.workload);
  auto device_of = readSplit(workloadPath(std::string("human-experts/") + e.split), problem);
  ASSERT_TRUE(device_of.hasValue()) << device_of.status().message();
  Evaluation eval = evaluateThroughput(problem, *device_of);
  EXPECT_NEAR(eval.max_load, e.published, e.half_unit);
  EXPECT_TRUE(splitViolations(problem, *device_of).empty());
}

INSTANTIATE_TEST_SUITE_P(
    Table1, ExpertSplit,
    ::testing::Values(
        Expert{"bert24_inference.json", "bert24_inference_expert.json", 20.084, 5e-4},
        Expert{"bert24_training.json", "bert24_training_expert.json", 49.4049, 5e-5},
        Expert{"gnmt_inference.json", "gnmt_inference_expert.json", 46.2085, 5e-5},
        Expert{"gnmt_training.json", "gnmt_training_expert.json", 137.154, 5e-4},
        Expert{"resnet50_inference.json", "resnet50_inference_expert.json", 43.9183, 5e-5},
        // Training workloads evaluated with the inference split: backward nodes
        // follow their forward colocation class.
        Expert{"resnet50_training.json", "resnet50_inference_expert.json", 112.108, 5e-4},
        Expert{"inceptionv3_inference.json", "inceptionv3_inference_expert.json", 102.482, 5e-4},
        Expert{"inceptionv3_training.json", "inceptionv3_inference_expert.json", 213.654, 5e-4}),
    [](const auto& info) {
      std::string name = info.param.workload;
      return name.substr(0, name.find('.'));
    });

}  // namespace evaluate_test
}  // namespace placer::testing
