// The CPU blocks' bound (solvers/bounds/cpu_block_bound.h): its limit G is at least what every
// convex block a core could hold carries (all subsets of tiny graphs, brute force), the bound never
// exceeds the exact DP's contiguous optimum, and where small operators that a CPU runs cheaply are
// spread between heavy ones it is above the simple bound, whose knapsack lets a core gather them all.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/evaluate.h"
#include "solvers/bounds/cpu_block_bound.h"
#include "solvers/bounds/simple_bound.h"
#include "solvers/dp/throughput_dp.h"
#include "tests/graph_builder.h"
#include "tests/solvers/random_contracted.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace cpu_block_bound_test {

// S is convex: no path leaves S and comes back (every node reachable from S and reaching S is in S).
bool convex(const Problem& p, std::uint32_t set) {
  const OpGraph& g = p.graph;
  const std::size_t n = boost::num_vertices(g);
  std::vector<bool> below(n, false), above(n, false);  // reached from S / reaching S
  for (Vertex v = 0; v < n; ++v) {  // vertex ids are a topological order in randomContracted
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
      const Vertex u = boost::source(*e, g);
      if ((set >> u & 1u) || below[u]) below[v] = true;
    }
  }
  for (Vertex v = n; v-- > 0;) {
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const Vertex w = boost::target(*e, g);
      if ((set >> w & 1u) || above[w]) above[v] = true;
    }
  }
  for (Vertex v = 0; v < n; ++v) {
    if (!(set >> v & 1u) && below[v] && above[v]) return false;
  }
  return true;
}

// The most accelerator time of a convex block whose CPU compute and boundary work are within `bound`.
double bruteForceLimit(const Problem& p, double bound) {
  const std::size_t n = boost::num_vertices(p.graph);
  double most = 0;
  for (std::uint32_t set = 1; set < (1u << n); ++set) {
    if (!convex(p, set)) continue;
    double cpu = 0, acc = 0;
    for (Vertex v = 0; v < n; ++v) {
      if (!(set >> v & 1u)) continue;
      cpu += p.graph[v].p_cpu;
      if (p.graph[v].supportedOnAccelerator()) acc += p.graph[v].p_acc;
    }
    for (const Net& net : p.nets) {
      int inside = (set >> net.source & 1u) != 0, members = 1;
      for (Vertex t : net.sinks) {
        inside += (set >> t & 1u) != 0;
        ++members;
      }
      if (inside > 0 && inside < members) cpu += net.cpu_cost;
    }
    if (cpu <= bound) most = std::max(most, acc);
  }
  return most;
}

TEST(CpuBlockBound, LimitIsTheMostABlockACoreCanHoldCarries) {
  for (unsigned seed = 1; seed <= 80; ++seed) {
    std::mt19937 rng(seed);
    const Problem p = randomContracted(rng, 5 + static_cast<int>(seed % 8), false, DeviceSet{2, 1e18, 1});
    double cpu_total = 0;
    for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v)
      cpu_total += p.graph[v].p_cpu;
    for (double share : {0.15, 0.4, 0.8}) {
      const double bound = share * cpu_total;
      const std::optional<CpuBlockLimit> limit = cpuBlockLimit(p, bound, Budget::unlimited());
      ASSERT_TRUE(limit.has_value()) << "seed " << seed;
      const double brute = bruteForceLimit(p, bound);
      // Solved to optimality (no budget): G itself, raised by the tolerance only.
      EXPECT_FALSE(limit->cut_short);
      EXPECT_GE(limit->acc, brute) << "seed " << seed << ", bound " << bound;
      EXPECT_LE(limit->acc, brute + 1e-6 * bound) << "seed " << seed << ", bound " << bound;
    }
  }
}

TEST(CpuBlockBound, NeverAboveTheContiguousOptimum) {
  int above_simple = 0, instances = 0;
  for (unsigned seed = 1; seed <= 120; ++seed) {
    std::mt19937 rng(seed);
    const DeviceSet devices{1 + static_cast<int>(seed % 3), 1e18, 1 + static_cast<int>(seed % 2)};
    const Problem p = randomContracted(rng, 6 + static_cast<int>(seed % 9), false, devices);
    const SolveResult dp = solveThroughputDp(p, DpOptions{});
    ASSERT_EQ(dp.status, SolveStatus::Optimal) << "seed " << seed << ": " << dp.message;
    auto bound = contiguousCpuBlockBound(p, dp.value, Budget::unlimited());
    ASSERT_TRUE(bound.hasValue()) << bound.status().message();
    ASSERT_TRUE(bound->has_value()) << "seed " << seed;
    ++instances;
    EXPECT_LE((*bound)->value, dp.value * (1 + 1e-9)) << "seed " << seed;
    auto simple = throughputSimpleBound(p);
    ASSERT_TRUE(simple.hasValue());
    above_simple += (*bound)->value > simple->value * (1 + 1e-6);
  }
  EXPECT_GT(above_simple, 0) << "of " << instances;
}

// 24 layers, each a heavy operator (1000 on a CPU) and two small ones (better on a CPU): the knapsack
// lets a core take all 48 small ones, a block only one layer's two.
TEST(CpuBlockBound, ACoreTakesOneLayerNotEverySmallOperator) {
  const Problem p = heavyAndSmallLayers(DeviceSet{4, 1e18, 1});
  const SolveResult dp = solveThroughputDp(p, DpOptions{});
  ASSERT_EQ(dp.status, SolveStatus::Optimal);
  const std::optional<CpuBlockLimit> limit = cpuBlockLimit(p, dp.value, Budget::unlimited());
  ASSERT_TRUE(limit.has_value());
  EXPECT_NEAR(limit->acc, 2.0, 1e-4);  // one layer's two small operators
  auto bound = contiguousCpuBlockBound(p, dp.value, Budget::unlimited());
  ASSERT_TRUE(bound.hasValue() && bound->has_value());
  auto simple = throughputSimpleBound(p);
  ASSERT_TRUE(simple.hasValue());
  // Work 288 on 4 accelerators, 2 of it on the core, and their boundary floors (boundary_floors.h):
  // every node but the first reads at least 0.5 and every node but the last sends 0.5, so three
  // accelerators receive and three send at least that: (288 - 2 + 3) / 4.
  EXPECT_NEAR((*bound)->value, 72.25, 1e-4);
  EXPECT_LT(simple->value, 66.0);  // 65.875
  EXPECT_LE((*bound)->value, dp.value);
}

TEST(CpuBlockBound, LeavesWhatItDoesNotBoundAlone) {
  GraphBuilder b(DeviceSet{2, 1e18, 0});
  const int x = b.node(1, 2), y = b.node(1, 2);
  b.edge(x, y, 0.1);
  EXPECT_FALSE(cpuBlockLimit(b.build(), 5, Budget::unlimited()).has_value());  // no CPU core
  EXPECT_EQ(cpuBlockBoundDoesNotApply(b.build()), "the machine has no CPU core or no accelerator");

  GraphBuilder t(DeviceSet{2, 1e18, 1});
  const int f = t.node(1, 2), g = t.node(1, 2);
  t.edge(f, g, 0.1).backward(g);
  EXPECT_FALSE(cpuBlockLimit(t.build(), 5, Budget::unlimited()).has_value());  // training graph
  EXPECT_EQ(cpuBlockBoundDoesNotApply(t.build()), "a training graph (its contiguity is the forward graph's)");
  EXPECT_FALSE(cpuBlockBoundDoesNotApply(heavyAndSmallLayers(DeviceSet{4, 1e18, 1})).has_value());
}

}  // namespace cpu_block_bound_test
}  // namespace placer::testing
