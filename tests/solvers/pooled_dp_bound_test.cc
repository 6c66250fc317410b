// Bypassing operators (solvers/bounds/bypass.h) and the DP with floating operators pooled
// (solvers/bounds/pooled_dp_bound.h): the bypassed graph by hand; every contiguous split, restricted
// to the kept operators, costing no device more in the bypassed graph (the evaluator on both); the
// bound never above the exact DP's optimum on random problems with operators bypassed; and exact
// where nothing floats and the split is balanced.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/evaluate.h"
#include "solvers/bounds/bypass.h"
#include "solvers/bounds/cpu_block_bound.h"
#include "solvers/bounds/pooled_dp_bound.h"
#include "solvers/bounds/simple_bound.h"
#include "solvers/dp/throughput_dp.h"
#include "tests/graph_builder.h"
#include "tests/solvers/random_contracted.h"

namespace placer::testing {
namespace pooled_dp_bound_test {

// a -> v -> w -> x and a -> y: v and w have one input each and are bypassed; a's tensor reaches
// y directly and x through them, at the least of the three transfer costs on the way.
TEST(Bypass, AChainOfUnaryOperatorsByHand) {
  GraphBuilder b(DeviceSet{2, 1e9, 1});
  const int a = b.node(1, 10), v = b.node(2, 20), w = b.node(3, 30), x = b.node(4, 40), y = b.node(5, 50);
  b.edge(a, v, 5, 0.5).edge(a, y, 5, 0.5).edge(v, w, 2, 0.7).edge(w, x, 3, 0.2);
  const Problem p = b.build();
  const std::vector<BypassCandidate> candidates = bypassCandidates(p);
  std::vector<Vertex> unary;
  for (const BypassCandidate& c : candidates)
    unary.push_back(c.vertex);
  std::sort(unary.begin(), unary.end());
  EXPECT_EQ(unary, (std::vector<Vertex>{1, 2, 3, 4}));  // a has no input
  std::vector<bool> bypass(5, false);
  bypass[v] = bypass[w] = true;
  const Bypassed r = bypassOperators(p, bypass);
  EXPECT_EQ(r.count, 2);
  EXPECT_DOUBLE_EQ(r.pool_acc, 5);
  EXPECT_EQ(r.kept, (std::vector<Vertex>{0, 3, 4}));
  ASSERT_EQ(boost::num_vertices(r.problem.graph), 3u);
  ASSERT_EQ(r.problem.nets.size(), 1u);
  const Net& net = r.problem.nets[0];
  EXPECT_EQ(net.source, 0u);
  EXPECT_EQ(net.sinks, (std::vector<Vertex>{1, 2}));  // x and y, renumbered
  EXPECT_DOUBLE_EQ(net.cost, 2);
  EXPECT_DOUBLE_EQ(net.cpu_cost, 0.2);
  EXPECT_TRUE(boost::edge(0, 1, r.problem.graph).second);
  EXPECT_TRUE(boost::edge(0, 2, r.problem.graph).second);
}

// A random contiguous split: a random topological order cut into runs, each on its own device,
// the runs in pipeline order.
Placement randomContiguousSplit(const Problem& p, std::mt19937& rng) {
  const std::vector<Vertex> order = randomForwardOrder(p, rng);
  const int devices = p.devices.count();
  std::vector<int> ids(static_cast<std::size_t>(devices));
  for (int d = 0; d < devices; ++d)
    ids[static_cast<std::size_t>(d)] = d;
  std::shuffle(ids.begin(), ids.end(), rng);
  Placement split{std::vector<int>(order.size()), std::vector<int>(order.size()), 0};
  int run = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && run + 1 < devices && rng() % 3 == 0) ++run;
    split.device_of[order[i]] = ids[static_cast<std::size_t>(run)];
    split.stage_of[order[i]] = run;
  }
  split.value = evaluateThroughput(p, split.device_of).max_load;
  return split;
}

// A random problem in the DP's contracted form, without overlap (the bound's precondition).
Problem boundProblem(std::mt19937& rng, int n, DeviceSet devices) {
  Problem p = randomContracted(rng, n, false, devices);
  p.objective.overlap = Overlap::None;
  return p;
}

TEST(Bypass, NoDeviceOfARestrictedSplitCostsMore) {
  int bypassed = 0, cheaper = 0, valid = 0;
  for (unsigned seed = 1; seed <= 150; ++seed) {
    std::mt19937 rng(seed);
    const Problem p = boundProblem(rng, 6 + static_cast<int>(seed % 10), DeviceSet{3, 1e18, 1});
    const std::vector<BypassCandidate> candidates = bypassCandidates(p);
    std::vector<bool> bypass(boost::num_vertices(p.graph), false);
    for (const BypassCandidate& c : candidates)
      bypass[c.vertex] = rng() % 2 == 0;
    const Bypassed r = bypassOperators(p, bypass);
    bypassed += r.count;
    ASSERT_TRUE(findCycle(r.problem.graph, true).empty()) << "seed " << seed;
    for (int trial = 0; trial < 10; ++trial) {
      const Placement split = randomContiguousSplit(p, rng);
      const Evaluation full = evaluateThroughput(p, split.device_of);
      Placement kept{{}, {}, 0};
      for (Vertex v : r.kept) {
        kept.device_of.push_back(split.device_of[v]);
        kept.stage_of.push_back(split.stage_of[v]);
      }
      const Evaluation restricted = evaluateThroughput(r.problem, kept.device_of);
      kept.value = restricted.max_load;
      // A valid split (no unsupported node on an accelerator) stays one: convex blocks in order.
      if (verify(p, split)) {
        ++valid;
        const Status s = verify(r.problem, kept);
        ASSERT_TRUE(s) << "seed " << seed << " trial " << trial << ": " << s.message();
      }
      for (int d = 0; d < p.devices.count(); ++d) {
        const DeviceLoad& before = full.devices[static_cast<std::size_t>(d)];
        const DeviceLoad& after = restricted.devices[static_cast<std::size_t>(d)];
        ASSERT_LE(after.comm_in + after.comm_out, before.comm_in + before.comm_out + 1e-9)
            << "seed " << seed << " trial " << trial << " device " << d;
        ASSERT_LE(after.load, before.load + 1e-9) << "seed " << seed << " trial " << trial << " device " << d;
        cheaper += after.comm_in + after.comm_out < before.comm_in + before.comm_out - 1e-9;
      }
    }
  }
  EXPECT_GT(bypassed, 300);
  EXPECT_GT(cheaper, 100);  // the min along a chain is below what some devices paid
  EXPECT_GT(valid, 300);
}

TEST(PooledDpBound, NeverAboveTheExactOptimum) {
  int bounded = 0, with_pool = 0, tight = 0, above_simple = 0;
  for (unsigned seed = 1; seed <= 120; ++seed) {
    std::mt19937 rng(seed);
    const int cpus = static_cast<int>(seed % 2);
    const DeviceSet devices{2 + static_cast<int>(seed % 3 == 0), 1e18, cpus};
    const Problem p = boundProblem(rng, 7 + static_cast<int>(seed % 8), devices);
    DpOptions options;
    const SolveResult dp = solveThroughputDp(p, options);
    if (dp.status != SolveStatus::Optimal) continue;  // no split (a node no device may hold)
    const Expected<SimpleBound> simple = simpleBound(p, Budget::unlimited());
    ASSERT_TRUE(simple);
    double take = 0;
    if (cpus > 0) {
      const std::optional<CpuBlockLimit> limit = cpuBlockLimit(p, dp.value, Budget::unlimited());
      ASSERT_TRUE(limit.has_value());
      take = limit->acc;
    }
    for (std::int64_t max_ideals : {4, 12, 40, 100000}) {
      for (double slack : {1.0, 1.25}) {
        auto bound =
            pooledDpBound(p, dp.value * slack, take, Budget::unlimited(), PooledDpOptions{max_ideals});
        ASSERT_TRUE(bound) << bound.status().message();
        if (!*bound) continue;
        ++bounded;
        with_pool += (*bound)->bypassed > 0;
        ASSERT_LE((*bound)->value, dp.value * (1 + 1e-9))
            << "seed " << seed << " max ideals " << max_ideals << " bypassed " << (*bound)->bypassed;
        tight += (*bound)->value >= dp.value * (1 - 1e-3);  // the bisection's tolerance
        above_simple += (*bound)->bypassed > 0 && (*bound)->value > simple->value * (1 + 1e-6);
      }
    }
  }
  // Measured: 452 bounds, 224 of them with operators bypassed, 123 of those above the simple bound;
  // 246 within the bisection's 0.1% of the optimum.
  EXPECT_GE(bounded, 400);
  EXPECT_GE(with_pool, 200);
  EXPECT_GE(above_simple, 100);
  EXPECT_GE(tight, 200);
}

// Eight operators in a chain, every one 1 and every transfer 0.5, on two accelerators: nothing
// floats, nothing is bypassed, and the least sum within 4.5 is 4 + 0.5 on each side: the bound is
// the optimum. Without the transfers it would be 4.
TEST(PooledDpBound, ABalancedChainIsBoundedByItsOptimum) {
  GraphBuilder b(DeviceSet{2, 1e9, 0});
  for (int v = 0; v < 8; ++v) {
    b.node(1, 3);
    if (v > 0) b.edge(v - 1, v, 0.5);
  }
  const Problem p = b.build();
  auto bound = pooledDpBound(p, 4.5, 0, Budget::unlimited());
  ASSERT_TRUE(bound && *bound);
  EXPECT_EQ((*bound)->bypassed, 0);
  EXPECT_NEAR((*bound)->value, 4.5, 1e-6);
  EXPECT_EQ((*bound)->rounds, 1);
  // From a worse split's 5.5 it still finds 4.5.
  auto from_above = pooledDpBound(p, 5.5, 0, Budget::unlimited());
  ASSERT_TRUE(from_above && *from_above);
  EXPECT_NEAR((*from_above)->value, 4.5, 1e-3 * 4.5);
}

TEST(PooledDpBound, SaysWhereItDoesNotApply) {
  GraphBuilder b(DeviceSet{2, 1e9, 0});
  b.node(1, 3);
  b.node(1, 3);
  b.edge(0, 1, 0.5);
  Problem p = b.build();
  EXPECT_FALSE(pooledDpBoundDoesNotApply(p).has_value());
  p.objective.overlap = Overlap::Max;
  EXPECT_EQ(pooledDpBoundDoesNotApply(p), "communication overlaps computation");
  auto bound = pooledDpBound(p, 2, 0, Budget::unlimited());
  ASSERT_TRUE(bound);
  EXPECT_FALSE(bound->has_value());
  p.objective.overlap = Overlap::None;
  p.objective.goal = Goal::Latency;
  EXPECT_EQ(pooledDpBoundDoesNotApply(p), "the objective is not max-load");
}

}  // namespace pooled_dp_bound_test
}  // namespace placer::testing
