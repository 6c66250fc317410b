// The greedy latency baseline (Tarnawski et al. 2020, §7): its rules on tiny graphs, its order on
// random ones, and the Greedy column of Table 4 on the eight latency workloads.
#include "solvers/latency_greedy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/latency.h"
#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace latency_greedy_test {

std::vector<Vertex> vertices(std::initializer_list<int> ids) {
  return std::vector<Vertex>(ids.begin(), ids.end());
}

TEST(LatencyGreedy, FillsAcceleratorsInOrderAndSendsTheRestToTheCpu) {
  GraphBuilder g({2, 100, 1});
  for (int i = 0; i < 5; ++i)
    g.node(1, 10, 40);
  for (int i = 0; i + 1 < 5; ++i)
    g.edge(i, i + 1, 1);
  SolveResult r = solveLatencyGreedy(g.build());
  ASSERT_EQ(r.status, SolveStatus::Feasible) << r.message;
  EXPECT_EQ(r.placement.device_of, (std::vector<int>{0, 0, 1, 1, 2}));
  EXPECT_EQ(r.placement.stage_of, (std::vector<int>{0, 0, 1, 1, 2}));
  // {0, 1}: 2 + 1 out; {2, 3}: 1 in + 2 + 1 out; node 4 on the CPU: 10.
  EXPECT_DOUBLE_EQ(r.value, 3 + 4 + 10);
  EXPECT_DOUBLE_EQ(r.placement.value, r.value);
  EXPECT_TRUE(verifyLatency(g.build(), r.placement).isOk());
}

TEST(LatencyGreedy, ABlockThatFitsNoAcceleratorClosesTheCurrentOne) {
  // Memories 40, 150, 40, 40 with M = 100: node 1 goes to the CPU, and node 2 opens accelerator 1
  // although accelerator 0 has room left.
  GraphBuilder g({2, 100, 1});
  for (double m : {40, 150, 40, 40})
    g.node(1, 1, m);
  g.edge(0, 1, 1).edge(1, 2, 1).edge(2, 3, 1);
  SolveResult r = solveLatencyGreedy(g.build());
  ASSERT_EQ(r.status, SolveStatus::Feasible) << r.message;
  EXPECT_EQ(r.placement.device_of, (std::vector<int>{0, 2, 1, 1}));
  EXPECT_EQ(r.placement.stage_of, (std::vector<int>{0, 1, 2, 2}));

  // An unsupported node is treated the same way.
  GraphBuilder h({2, 100, 1});
  for (int i = 0; i < 3; ++i)
    h.node(1, 1, 10);
  h.edge(0, 1, 1).edge(1, 2, 1).unsupported(1);
  r = solveLatencyGreedy(h.build());
  ASSERT_EQ(r.status, SolveStatus::Feasible) << r.message;
  EXPECT_EQ(r.placement.device_of, (std::vector<int>{0, 2, 1}));
  EXPECT_TRUE(verifyLatency(h.build(), r.placement).isOk());
}

TEST(LatencyGreedy, WithoutACpuWhatFitsNoAcceleratorIsInfeasible) {
  GraphBuilder unsupported({2, 100, 0});
  unsupported.node(1, 1, 0, "a");
  unsupported.node(1, 1, 0, "b");
  unsupported.edge(0, 1, 1).unsupported(1);
  SolveResult r = solveLatencyGreedy(unsupported.build());
  EXPECT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_NE(r.message.find("node 1 \"b\" is not supported on accelerators"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("no CPU"), std::string::npos) << r.message;

  GraphBuilder big({2, 100, 0});
  big.node(1, 1, 60);
  big.node(1, 1, 60);
  big.colocate(0, 3).colocate(1, 3);
  r = solveLatencyGreedy(big.build());
  EXPECT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_NE(r.message.find("needs 120 bytes, more than an accelerator's 100"), std::string::npos)
      << r.message;

  GraphBuilder full({2, 100, 0});
  for (int i = 0; i < 3; ++i)
    full.node(1, 1, 60);
  r = solveLatencyGreedy(full.build());
  EXPECT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_NE(r.message.find("all 2 accelerator(s) are full"), std::string::npos) << r.message;

  // With a CPU the same instances are feasible.
  GraphBuilder fine({2, 100, 1});
  for (int i = 0; i < 3; ++i)
    fine.node(1, 1, 60);
  r = solveLatencyGreedy(fine.build());
  ASSERT_EQ(r.status, SolveStatus::Feasible);
  EXPECT_EQ(r.placement.device_of, (std::vector<int>{2, 1, 0}));  // three sources: the last is taken first
}

// Two blocks that read one weight share an accelerator while the weight and both fit once: 10 + 10
// of own memory and the 30-byte weight held once is 50, which a 55-byte accelerator holds (counting
// the weight per reader would need 80 and open a second accelerator).
TEST(LatencyGreedy, ASharedWeightIsHeldOncePerAccelerator) {
  GraphBuilder b({2, 55, 1});
  b.node(1, 10, 10);
  b.node(1, 10, 10);
  b.edge(0, 1, 1).sharedWeight(30, {0, 1});
  SolveResult r = solveLatencyGreedy(b.build());
  ASSERT_EQ(r.status, SolveStatus::Feasible) << r.message;
  EXPECT_EQ(r.placement.device_of, (std::vector<int>{0, 0}));
  EXPECT_DOUBLE_EQ(r.value, 1 + 1);

  GraphBuilder tight({2, 45, 1});  // both do not fit together: the second block opens accelerator 1
  tight.node(1, 10, 10);
  tight.node(1, 10, 10);
  tight.edge(0, 1, 1).sharedWeight(30, {0, 1});
  SolveResult split = solveLatencyGreedy(tight.build());
  ASSERT_EQ(split.status, SolveStatus::Feasible) << split.message;
  EXPECT_EQ(split.placement.device_of, (std::vector<int>{0, 1}));
}

TEST(LatencyGreedy, ColocationClassesAndTheCyclesTheyCreateAreOneBlock) {
  // a -> b -> c with a and c colocated: a, b, c must share a device; d is on its own.
  GraphBuilder g({2, 100, 1});
  int a = g.node(1, 1, 30), b = g.node(1, 1, 30), c = g.node(1, 1, 30), d = g.node(1, 1, 30);
  g.edge(a, b, 1).edge(b, c, 1).edge(c, d, 1).colocate(a, 5).colocate(c, 5);
  std::vector<std::vector<Vertex>> blocks = latencyGreedyBlocks(g.build());
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0], vertices({0, 1, 2}));
  EXPECT_EQ(blocks[1], vertices({3}));
  SolveResult r = solveLatencyGreedy(g.build());
  ASSERT_EQ(r.status, SolveStatus::Feasible) << r.message;
  EXPECT_EQ(r.placement.device_of, (std::vector<int>{0, 0, 0, 1}));
}

TEST(LatencyGreedy, OrderIsDepthFirst) {
  // Sources 0 and 1 are pushed in index order, so 1 is taken first; 1's successors 2 and 3 are
  // pushed in edge order, so 3 is taken before 2, and 3's successor 4 before 2.
  GraphBuilder g({1, 100, 1});
  for (int i = 0; i < 6; ++i)
    g.node(1, 1);
  g.edge(1, 2, 1).edge(1, 3, 1).edge(3, 4, 1).edge(0, 5, 1).edge(2, 5, 1);
  std::vector<std::vector<Vertex>> blocks = latencyGreedyBlocks(g.build());
  std::vector<Vertex> order;
  for (const auto& block : blocks) {
    ASSERT_EQ(block.size(), 1u);
    order.push_back(block.front());
  }
  EXPECT_EQ(order, vertices({1, 3, 4, 2, 0, 5}));
}

// On random graphs with colocation classes: the blocks partition the nodes, keep classes whole,
// come in a topological order, and the greedy's placement verifies, fits in memory, and gives every
// accelerator one contiguous piece.
TEST(LatencyGreedy, RandomGraphsGiveValidContiguousPlacements) {
  for (unsigned seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int n = uniform(1, 16);
    GraphBuilder g({uniform(0, 4), static_cast<double>(uniform(20, 60)), uniform(0, 2)});
    for (int i = 0; i < n; ++i) {
      g.node(uniform(1, 8), uniform(1, 20), uniform(0, 25));
      if (uniform(0, 3) == 0) g.colocate(i, uniform(0, 3));
      if (uniform(0, 15) == 0) g.unsupported(i);
    }
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (uniform(0, 3) == 0) g.edge(i, j, uniform(0, 4));
    if (n >= 2 && seed % 2 == 0)
      g.sharedWeight(uniform(5, 20), {uniform(0, n - 1), uniform(0, n - 1), n - 1});
    const Problem p = g.build();
    const OpGraph& graph = p.graph;

    std::vector<int> position(n, -1);
    std::vector<std::vector<Vertex>> blocks = latencyGreedyBlocks(p);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      ASSERT_TRUE(std::is_sorted(blocks[b].begin(), blocks[b].end()));
      for (Vertex v : blocks[b]) {
        ASSERT_EQ(position[v], -1);
        position[v] = static_cast<int>(b);
      }
    }
    ASSERT_EQ(std::count(position.begin(), position.end(), -1), 0);
    std::map<int, int> block_of_class;
    for (int v = 0; v < n; ++v) {
      if (graph[v].colocation) {
        EXPECT_EQ(block_of_class.try_emplace(*graph[v].colocation, position[v]).first->second, position[v]);
      }
    }
    for (auto [it, end] = boost::edges(graph); it != end; ++it) {
      EXPECT_LE(position[boost::source(*it, graph)], position[boost::target(*it, graph)]);
    }

    SolveResult r = solveLatencyGreedy(p);
    if (r.status == SolveStatus::Infeasible) {
      EXPECT_EQ(p.devices.cpus, 0) << r.message;
      continue;
    }
    ASSERT_EQ(r.status, SolveStatus::Feasible) << r.message;
    ASSERT_TRUE(verifyLatency(p, r.placement).isOk()) << verifyLatency(p, r.placement).message();
    Expected<LatencyEvaluation> e = evaluateLatency(p, r.placement.device_of);
    ASSERT_TRUE(e.hasValue());
    std::set<int> devices;
    for (const LatencySubgraph& s : e->subgraphs) {
      EXPECT_TRUE(devices.insert(s.device).second) << "accelerator " << s.device << " is split";
      EXPECT_LE(s.memory, p.devices.memory);
    }
    for (int v = 0; v < n; ++v) {
      EXPECT_LE(r.placement.device_of[v], p.devices.accelerators);
      EXPECT_TRUE(r.placement.device_of[v] == p.devices.accelerators || graph[v].supportedOnAccelerator());
    }
  }
}

// Table 4, Greedy column: the latencies the published reference implementation prints.
struct Table4Case {
  const char* workload;
  double latency;
};

// The parameter as the test's name shows it (GoogleTest would print its bytes, a pointer among them).
void PrintTo(const Table4Case& c, std::ostream* os) {
  *os << c.workload;
}

class LatencyGreedyTable4 : public ::testing::TestWithParam<Table4Case> {};

TEST_P(LatencyGreedyTable4, ReproducesThePublishedLatency) {
  const Problem p = loadWorkload(std::string("latency-inputs/") + GetParam().workload);
  ASSERT_GT(boost::num_vertices(p.graph), 0u);
  SolveResult r = solveLatencyGreedy(p);
  ASSERT_EQ(r.status, SolveStatus::Feasible) << r.message;
  EXPECT_NEAR(r.value, GetParam().latency, 1e-6 * GetParam().latency);
  ASSERT_TRUE(verifyLatency(p, r.placement).isOk()) << verifyLatency(p, r.placement).message();

  Expected<LatencyEvaluation> e = evaluateLatency(p, r.placement.device_of);
  ASSERT_TRUE(e.hasValue()) << e.status().message();
  for (int d = 0; d < p.devices.accelerators; ++d)
    EXPECT_LE(e->memory[d], p.devices.memory) << "accelerator " << d;
  // As the paper notes, the greedy needs no CPU on these workloads, and each accelerator it uses is
  // one contiguous subgraph.
  for (int device : r.placement.device_of)
    EXPECT_LT(device, p.devices.accelerators);
  std::set<int> used(r.placement.device_of.begin(), r.placement.device_of.end());
  EXPECT_EQ(e->subgraphs.size(), used.size());
}

INSTANTIATE_TEST_SUITE_P(
    Workloads, LatencyGreedyTable4,
    ::testing::Values(Table4Case{"LayerGraphs/bert24_inference.json", 100.2185},
                      Table4Case{"LayerGraphs/gnmt_inference.json", 268.5005},
                      Table4Case{"LayerGraphs/inceptionv3_inference.json", 2485.23962988},
                      Table4Case{"LayerGraphs/resnet50_inference.json", 4197.05546875},
                      Table4Case{"OperatorGraphs/bert_l-3_inference.json", 416.204375587},
                      Table4Case{"OperatorGraphs/bert_l-6_inference.json", 494.135169235},
                      Table4Case{"OperatorGraphs/bert_l-12_inference.json", 867.839471236},
                      Table4Case{"OperatorGraphs/resnet50_inference.json", 839.536286336}),
    [](const ::testing::TestParamInfo<Table4Case>& info) {
      std::string name = info.param.workload;
      name = name.substr(0, name.find("_inference"));
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

}  // namespace latency_greedy_test
}  // namespace placer::testing
