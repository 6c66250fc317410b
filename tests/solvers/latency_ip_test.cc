// Latency integer program (Figs. 3 and 4): exhaustive search on tiny DAGs, the slot schedule against
// the evaluator, colocation across slots, infeasible and timed-out instances, and the paper's values
// on two Table 4 workloads.
#include "solvers/latency_ip.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/latency.h"
#include "solvers/bounds/simple_bound.h"
#include "solvers/latency_greedy.h"
#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace latency_ip_test {

LatencyIpOptions withSubgraphs(int q) {
  LatencyIpOptions o;
  o.subgraphs_per_accelerator = q;
  return o;
}

// A random DAG: nodes in index order, each with 1-2 predecessors among the previous few nodes;
// accelerators are about 10x faster than a CPU core.
Problem randomDag(std::uint32_t seed, int n, DeviceSet devices, bool with_memory) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> cost(0.5, 10), comm(0, 4), mem(0, 40), speedup(2, 15);
  GraphBuilder b(devices);
  for (int v = 0; v < n; ++v) {
    const double p_acc = cost(rng);
    // One draw per statement: a call's argument order is unspecified (GCC and clang differ).
    const double memory = with_memory ? mem(rng) : 0;
    const double p_cpu = p_acc * speedup(rng);
    b.node(p_acc, p_cpu, memory);
  }
  std::vector<double> out_cost(n);
  for (int v = 0; v < n; ++v)
    out_cost[v] = comm(rng);
  for (int v = 1; v < n; ++v) {
    const int preds = 1 + static_cast<int>(rng() % 2);
    for (int k = 0; k < preds; ++k) {
      const int u = std::max(0, v - 1 - static_cast<int>(rng() % 4));
      b.edge(u, v, out_cost[u]);
    }
  }
  if (n > 4 && rng() % 3 == 0) b.colocate(1, 0).colocate(n - 2, 0);
  if (rng() % 4 == 0) b.unsupported(static_cast<int>(rng() % n));
  return b.build();
}

// Memory, unsupported nodes and colocation of a slot assignment (0: CPU, slot j on accelerator
// (j-1)/q); the schedule itself is evaluateSlotSchedule's.
bool slotsRespectConstraints(const Problem& p, const std::vector<int>& slot_of, int q) {
  const OpGraph& g = p.graph;
  std::vector<double> memory(p.devices.accelerators, 0);
  std::map<int, int> device_of_class;
  for (Vertex v = 0; v < slot_of.size(); ++v) {
    const int device = slot_of[v] == 0 ? -1 : (slot_of[v] - 1) / q;
    if (device >= 0) {
      if (!g[v].supportedOnAccelerator()) return false;
      memory[device] += g[v].memory;
    } else if (p.devices.cpus == 0) {
      return false;
    }
    if (g[v].colocation) {
      auto [it, inserted] = device_of_class.try_emplace(*g[v].colocation, device);
      if (!inserted && it->second != device) return false;
    }
  }
  for (const SharedWeight& w : p.weights) {  // once per accelerator holding a reader
    std::set<int> holders;
    for (Vertex r : w.readers) {
      if (slot_of[r] != 0) holders.insert((slot_of[r] - 1) / q);
    }
    for (int device : holders)
      memory[device] += w.bytes;
  }
  return std::all_of(memory.begin(), memory.end(), [&](double m) { return m <= p.devices.memory; });
}

// randomDag with memory and 1-2 shared weights of 15-40 bytes read by 2-3 nodes each.
Problem randomDagWithSharedWeights(std::uint32_t seed, int n, DeviceSet devices) {
  Problem p = randomDag(seed, n, devices, true);
  addRandomSharedWeights(p, seed ^ 0x91u, 2, 3, 15, 40);
  return p;
}

// The best latency over every slot assignment (each slot contiguous, at most q per accelerator,
// run in slot order), with the used slots of an accelerator first (other layouts only add empty
// slots between the same subgraphs).
double bruteForceSlots(const Problem& p, int q) {
  const int n = static_cast<int>(boost::num_vertices(p.graph));
  const int columns = 1 + p.devices.accelerators * q;
  std::vector<int> slot_of(n, 0);
  double best = kInfinity;
  while (true) {
    bool prefix = true;
    std::vector<char> used(columns, 0);
    for (int s : slot_of)
      used[s] = 1;
    for (int j = 2; j < columns; ++j) {
      if ((j - 1) % q != 0 && used[j] && !used[j - 1]) prefix = false;
    }
    if (prefix && slotsRespectConstraints(p, slot_of, q)) {
      Expected<SlotSchedule> s = evaluateSlotSchedule(p, slot_of, q);
      if (s) best = std::min(best, s->latency);
    }
    int i = 0;
    while (i < n && ++slot_of[i] == columns)
      slot_of[i++] = 0;
    if (i == n) break;
  }
  return best;
}

// The best evaluator latency over every placement (device k = the CPU) whose accelerators each
// have at most `pieces` level pieces.
double bruteForcePlacements(const Problem& p, int pieces) {
  const int n = static_cast<int>(boost::num_vertices(p.graph));
  const int k = p.devices.accelerators;
  std::vector<int> device_of(n, 0);
  double best = kInfinity;
  while (true) {
    Expected<LatencyEvaluation> e = evaluateLatency(p, device_of);
    if (e && e->valid() &&
        std::all_of(e->subgraphs.begin(), e->subgraphs.end(),
                    [&](const LatencySubgraph& s) { return s.piece < pieces; })) {
      best = std::min(best, e->latency);
    }
    int i = 0;
    while (i < n && ++device_of[i] == k + 1)
      device_of[i++] = 0;
    if (i == n) break;
  }
  return best;
}

// What every solution must satisfy: the schedule of its slots is its value and the program's
// TotalLatency; for q = 1 (or whenever the level split is as good) the evaluator agrees too.
void expectConsistent(const Problem& p, const LatencyIpSolution& s, int q) {
  const SolveResult& r = s.result;
  ASSERT_FALSE(r.placement.device_of.empty()) << r.message;
  Expected<SlotSchedule> schedule = evaluateSlotSchedule(p, s.slot_of, q);
  ASSERT_TRUE(schedule.hasValue()) << schedule.status().message();
  const double tolerance = 1e-6 * std::max(1.0, r.value);
  EXPECT_NEAR(schedule->latency, r.value, tolerance);
  EXPECT_EQ(r.placement.value, r.value);
  EXPECT_LE(r.value, s.ip_latency + tolerance);
  EXPECT_LE(r.bound, r.value + tolerance);
  for (Vertex v = 0; v < s.slot_of.size(); ++v) {
    const int expected = s.slot_of[v] == 0 ? p.devices.accelerators : (s.slot_of[v] - 1) / q;
    EXPECT_EQ(r.placement.device_of[v], expected);
  }
  EXPECT_EQ(r.placement.stage_of.size(), s.slot_of.size());
  Expected<LatencyEvaluation> e = evaluateLatency(p, r.placement.device_of);
  ASSERT_TRUE(e.hasValue()) << e.status().message();
  EXPECT_TRUE(e->valid()) << e->violations.front();
  EXPECT_NEAR(e->latency, s.level_latency, tolerance);
  EXPECT_GE(s.level_latency, r.value - tolerance);
  if (q == 1) {
    EXPECT_NEAR(s.ip_latency, r.value, tolerance);
  }
  if (q == 1 || s.level_latency <= r.value + tolerance) {
    Status verified = verifyLatency(p, r.placement);
    EXPECT_TRUE(verified.isOk()) << verified.message();
  }
}

TEST(LatencyIp, ChainUsesTheAcceleratorsAndTheCpuWhereTheyPay) {
  // 0 -> 1 -> 2; node 1 is unsupported on accelerators, so it runs on the CPU between two
  // invocations; 0 and 2 fit one accelerator each.
  GraphBuilder b({2, 100, 1});
  b.node(1, 10, 60);
  b.node(1, 3, 0);
  b.node(2, 20, 60);
  b.edge(0, 1, 0.5).edge(1, 2, 0.25).unsupported(1);
  const Problem p = b.build();
  LatencyIpSolution s = solveLatencyIpDetailed(p, withSubgraphs(1));
  ASSERT_EQ(s.result.status, SolveStatus::Optimal) << s.result.message;
  // 1 + 0.5 out, 3 on the CPU, 0.25 in + 2.
  EXPECT_NEAR(s.result.value, 1.5 + 3 + 2.25, 1e-9);
  EXPECT_EQ(s.result.placement.device_of[1], 2);
  EXPECT_NE(s.result.placement.device_of[0], s.result.placement.device_of[2]);
  EXPECT_EQ(s.result.placement.stage_of, (std::vector<int>{0, 1, 2}));
  expectConsistent(p, s, 1);
}

TEST(LatencyIp, ContiguousEqualsExhaustiveSearchOnTinyDags) {
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    const int n = 5 + static_cast<int>(seed % 3);
    const bool with_memory = seed % 2 == 0;
    const Problem p = randomDag(seed, n, DeviceSet{2, with_memory ? 60.0 : 1e18, 1}, with_memory);
    const double exhaustive = bruteForcePlacements(p, 1);
    for (bool heuristics : {true, false}) {
      LatencyIpOptions o = withSubgraphs(1);
      o.heuristics = heuristics;
      LatencyIpSolution s = solveLatencyIpDetailed(p, o);
      ASSERT_EQ(s.result.status, SolveStatus::Optimal) << "seed " << seed << ": " << s.result.message;
      EXPECT_NEAR(s.result.value, exhaustive, 1e-6 * exhaustive)
          << "seed " << seed << " heuristics " << heuristics;
      EXPECT_NEAR(s.result.value, bruteForceSlots(p, 1), 1e-6 * exhaustive) << "seed " << seed;
      expectConsistent(p, s, 1);
    }
  }
}

// A machine of two kinds (one accelerator each; b 0.3-3x a's time per node, with half the memory in
// some cases):
// the contiguous program equals exhaustive search over placements priced by the kind-aware
// evaluator, from the heuristics' starts (the greedy's and the kinds' own splits) and from none; the
// non-contiguous one (q = 2) is consistent and never worse; and in some cases the kinds decide the
// answer (pricing both accelerators as kind a would give another).
TEST(LatencyIp, AMachineOfTwoKindsEqualsExhaustiveSearch) {
  int binding = 0;
  for (std::uint32_t seed = 1; seed <= 16; ++seed) {
    const int n = 5 + static_cast<int>(seed % 2);
    const bool with_memory = seed % 2 == 0;
    const double memory = with_memory ? 60.0 : 1e18;
    Problem p = randomDag(seed, n, DeviceSet{2, memory, static_cast<int>(seed / 2 % 2)}, with_memory);
    p.devices.kinds = {{"a", 1, memory}, {"b", 1, seed % 4 == 0 ? memory / 2 : memory}};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> ratio(0.3, 3);  // b is faster on some nodes, slower on others
    for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v)
      p.graph[v].p_kinds = {p.graph[v].supportedOnAccelerator() ? p.graph[v].p_acc * ratio(rng) : kInfinity};
    ASSERT_TRUE(checkKinds(p).isOk()) << seed;
    const double exhaustive = bruteForcePlacements(p, 1);
    if (!std::isfinite(exhaustive)) continue;
    double contiguous = kInfinity;
    for (bool heuristics : {true, false}) {
      LatencyIpOptions o = withSubgraphs(1);
      o.heuristics = heuristics;
      LatencyIpSolution s = solveLatencyIpDetailed(p, o);
      ASSERT_EQ(s.result.status, SolveStatus::Optimal) << "seed " << seed << ": " << s.result.message;
      EXPECT_NEAR(s.result.value, exhaustive, 1e-6 * exhaustive) << "seed " << seed << " heuristics " << heuristics;
      EXPECT_TRUE(verifyLatency(p, s.result.placement).isOk()) << seed;
      contiguous = s.result.value;
    }
    LatencyIpSolution two = solveLatencyIpDetailed(p, withSubgraphs(2));
    ASSERT_EQ(two.result.status, SolveStatus::Optimal) << "seed " << seed << ": " << two.result.message;
    expectConsistent(p, two, 2);  // its slot schedule, the evaluator's level pieces, each kind's times
    EXPECT_LE(two.result.value, contiguous * (1 + 1e-9)) << seed;
    const SolveResult greedy = solveLatencyGreedy(p);
    if (greedy.status == SolveStatus::Feasible) {
      EXPECT_TRUE(verifyLatency(p, greedy.placement).isOk()) << seed;
    }
    Problem alike = p;  // both accelerators priced as kind a
    alike.devices.kinds.clear();
    for (Vertex v = 0; v < boost::num_vertices(alike.graph); ++v)
      alike.graph[v].p_kinds.clear();
    binding += std::abs(bruteForcePlacements(alike, 1) - exhaustive) > 1e-9 * exhaustive;
  }
  EXPECT_GE(binding, 4);  // 5 of the 11 feasible instances
}

// The same optimum on either MIP backend, q = 1 and q = 2, against exhaustive search over slots.
TEST(LatencyIp, CbcAndGlpkFindTheSameOptima) {
  if (!mip::backendAvailable(mip::Backend::Cbc)) GTEST_SKIP() << "this build has no CBC";
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    const int n = 5 + static_cast<int>(seed % 2);
    const bool with_memory = seed % 2 == 0;
    const Problem p = randomDag(seed, n, DeviceSet{2, with_memory ? 60.0 : 1e18, 1}, with_memory);
    for (int q : {1, 2}) {
      const double slots = bruteForceSlots(p, q);
      for (mip::Backend backend : {mip::Backend::Glpk, mip::Backend::Cbc}) {
        LatencyIpOptions o = withSubgraphs(q);
        o.backend = backend;
        o.heuristics = seed % 3 != 0;  // some searches start from nothing
        LatencyIpSolution s = solveLatencyIpDetailed(p, o);
        ASSERT_EQ(s.result.status, SolveStatus::Optimal)
            << "seed " << seed << " q " << q << " on " << mip::toString(backend) << ": " << s.result.message;
        EXPECT_NEAR(s.ip_latency, slots, 1e-6 * slots) << "seed " << seed << " q " << q << " on " << mip::toString(backend);
        expectConsistent(p, s, q);
      }
    }
  }
}

TEST(LatencyIp, TwoSubgraphsPerAcceleratorEqualExhaustiveSearchOverSlots) {
  // The program's optimum is over slot assignments: it is at most the contiguous optimum and at
  // most the best placement whose accelerators have at most two level pieces (the level split is
  // one way to fill the slots), and it can be below the latter, since a slot may hold a node later
  // than its level would put it.
  int below_level = 0;
  for (std::uint32_t seed = 100; seed < 118; ++seed) {
    const int n = 5 + static_cast<int>(seed % 2);
    const bool with_memory = seed % 3 == 0;
    const Problem p = randomDag(seed, n, DeviceSet{2, with_memory ? 60.0 : 1e18, 1}, with_memory);
    LatencyIpSolution s = solveLatencyIpDetailed(p, withSubgraphs(2));
    ASSERT_EQ(s.result.status, SolveStatus::Optimal) << "seed " << seed << ": " << s.result.message;
    expectConsistent(p, s, 2);
    const double slots = bruteForceSlots(p, 2);
    EXPECT_NEAR(s.result.value, slots, 1e-6 * slots) << "seed " << seed;
    const double contiguous = solveLatencyIp(p, withSubgraphs(1)).value;
    EXPECT_LE(s.result.value, contiguous + 1e-6 * contiguous) << "seed " << seed;
    const double level = bruteForcePlacements(p, 2);
    EXPECT_LE(s.result.value, level + 1e-6 * level) << "seed " << seed;
    if (s.result.value < level - 1e-6 * level) ++below_level;
  }
  std::printf("q = 2: the slot optimum was below the best level split on %d of 18 DAGs\n", below_level);
}

TEST(LatencyIp, SharedWeightsEqualExhaustiveSearch) {
  for (std::uint32_t seed = 300; seed < 316; ++seed) {
    const int n = 5 + static_cast<int>(seed % 2);
    const Problem p = randomDagWithSharedWeights(seed, n, DeviceSet{2, 80.0, 1});
    for (int q : {1, 2}) {
      LatencyIpSolution s = solveLatencyIpDetailed(p, withSubgraphs(q));
      const double slots = bruteForceSlots(p, q);
      if (!std::isfinite(slots)) {
        EXPECT_EQ(s.result.status, SolveStatus::Infeasible) << "seed " << seed << " q " << q;
        continue;
      }
      ASSERT_EQ(s.result.status, SolveStatus::Optimal)
          << "seed " << seed << " q " << q << ": " << s.result.message;
      EXPECT_NEAR(s.result.value, slots, 1e-6 * slots) << "seed " << seed << " q " << q;
      expectConsistent(p, s, q);
      if (q == 1) {
        const double exhaustive = bruteForcePlacements(p, 1);
        EXPECT_NEAR(s.result.value, exhaustive, 1e-6 * exhaustive) << "seed " << seed;
      }
    }
  }
}

TEST(LatencyIp, SlotsCanBeatTheLevelSplitOfTheSamePlacement) {
  // One accelerator, two slots. 0 -> 1 -> 2 with 1 only on the CPU; 3 (CPU only, 10) -> 4 (accelerator
  // only). The level split runs {0, 4} first, which waits for 3 until time 10: 10 + 2, then 1 and 2:
  // latency 14. The program runs {0} first and {2, 4} second: max(0 + 1 + 1, 10) + 2 = 12.
  GraphBuilder b({1, 100, 1});
  b.node(1, 100);
  b.node(kInfinity, 1);
  b.node(1, 100);
  b.node(kInfinity, 10);
  b.node(1, kInfinity);
  b.edge(0, 1, 0).edge(1, 2, 0).edge(3, 4, 0).unsupported(1).unsupported(3);
  const Problem p = b.build();
  LatencyIpSolution s = solveLatencyIpDetailed(p, withSubgraphs(2));
  ASSERT_EQ(s.result.status, SolveStatus::Optimal) << s.result.message;
  EXPECT_NEAR(s.result.value, 12, 1e-9);
  EXPECT_NEAR(s.level_latency, 14, 1e-9);
  EXPECT_EQ(s.slot_of, (std::vector<int>{1, 0, 2, 0, 2}));
  EXPECT_NE(s.result.message.find("level split"), std::string::npos) << s.result.message;
  expectConsistent(p, s, 2);
  // Contiguous: {0, 2, 4} cannot be one invocation (0 -> 1 -> 2 leaves and returns). The best is 0
  // on the CPU and {2, 4} on the accelerator: 100 + 1, then 1 + 1.
  EXPECT_NEAR(solveLatencyIp(p, withSubgraphs(1)).value, 103, 1e-9);
}

TEST(LatencyIp, ColocatedNodesShareAnAcceleratorAcrossSlots) {
  // a -> b -> c with a, c colocated and b only on the CPU. With one subgraph per accelerator, a and
  // c cannot share an invocation, so the class goes to the CPU: 50 + 1 + 50. With two, a and c take
  // the two slots of one accelerator: 1 + 0.5 + 1 + 0.5 + 1.
  GraphBuilder b({2, 100, 1});
  b.node(1, 50);
  b.node(kInfinity, 1);
  b.node(1, 50);
  b.edge(0, 1, 0.5).edge(1, 2, 0.5).unsupported(1).colocate(0, 7).colocate(2, 7);
  const Problem p = b.build();
  LatencyIpSolution one = solveLatencyIpDetailed(p, withSubgraphs(1));
  ASSERT_EQ(one.result.status, SolveStatus::Optimal) << one.result.message;
  EXPECT_NEAR(one.result.value, 101, 1e-9);
  expectConsistent(p, one, 1);
  LatencyIpSolution two = solveLatencyIpDetailed(p, withSubgraphs(2));
  ASSERT_EQ(two.result.status, SolveStatus::Optimal) << two.result.message;
  EXPECT_NEAR(two.result.value, 4, 1e-9);
  EXPECT_EQ(two.result.placement.device_of[0], two.result.placement.device_of[2]);
  EXPECT_NE(two.slot_of[0], two.slot_of[2]);
  expectConsistent(p, two, 2);
}

TEST(LatencyIp, InfeasibleInstancesSayWhy) {
  // Three nodes of 8 on two accelerators of 10, no CPU.
  GraphBuilder memory({2, 10, 0});
  memory.node(1, 1, 8);
  memory.node(1, 1, 8);
  memory.node(1, 1, 8);
  memory.edge(0, 1, 1).edge(1, 2, 1);
  SolveResult r = solveLatencyIp(memory.build(), withSubgraphs(1));
  EXPECT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_NE(r.message.find("no CPU"), std::string::npos) << r.message;
  EXPECT_TRUE(r.placement.device_of.empty());

  // Enough memory in total and for the colocated pair {0, 2}, but with one subgraph per accelerator
  // the pair cannot share an accelerator around 1, and there is no CPU: the program itself has no
  // solution. Two subgraphs per accelerator make it feasible.
  GraphBuilder contiguity({2, 10, 0});
  contiguity.node(1, 1, 4);
  contiguity.node(1, 1, 4);
  contiguity.node(1, 1, 4);
  contiguity.edge(0, 1, 1).edge(1, 2, 1).colocate(0, 1).colocate(2, 1);
  r = solveLatencyIp(contiguity.build(), withSubgraphs(1));
  EXPECT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_NE(r.message.find("no split satisfies"), std::string::npos) << r.message;
  EXPECT_EQ(solveLatencyIp(contiguity.build(), withSubgraphs(2)).status, SolveStatus::Optimal);

  GraphBuilder unsupported({2, 100, 0});
  unsupported.node(1, 1, 0, "a");
  unsupported.node(1, 1, 0, "b");
  unsupported.edge(0, 1, 1).unsupported(1);
  r = solveLatencyIp(unsupported.build(), withSubgraphs(1));
  EXPECT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_NE(r.message.find("node 1 \"b\" is not supported on accelerators"), std::string::npos) << r.message;

  GraphBuilder huge({2, 100, 0});
  huge.node(1, 1, 10, "small");
  huge.node(1, 1, 150, "huge");
  huge.edge(0, 1, 1);
  r = solveLatencyIp(huge.build(), withSubgraphs(1));
  EXPECT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_NE(r.message.find("node 1 \"huge\" needs 150 bytes, more than an accelerator's 100"),
            std::string::npos)
      << r.message;

  GraphBuilder cycle({2, 100, 1});
  cycle.node(1, 1);
  cycle.node(1, 1);
  cycle.edge(0, 1, 1).edge(1, 0, 1);
  r = solveLatencyIp(cycle.build(), withSubgraphs(1));
  EXPECT_EQ(r.status, SolveStatus::Error);
  EXPECT_NE(r.message.find("cycle"), std::string::npos) << r.message;

  GraphBuilder big({2, 100, 0});
  big.node(1, 1, 60, "a");
  big.node(1, 1, 60, "b");
  big.colocate(0, 3).colocate(1, 3);
  r = solveLatencyIp(big.build(), withSubgraphs(2));
  EXPECT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_NE(r.message.find("colocation class"), std::string::npos) << r.message;
}

TEST(LatencyIp, TimeLimitZeroReturnsTheStartOrSaysThereIsNone) {
  const Problem p = randomDag(7, 7, DeviceSet{2, 1e18, 1}, false);
  LatencyIpOptions o = withSubgraphs(1);
  o.limits.time_limit = 0;
  o.heuristics = false;
  SolveResult none = solveLatencyIp(p, o);
  EXPECT_EQ(none.status, SolveStatus::TimeLimit);
  EXPECT_NE(none.message.find("no split found within the time limit"), std::string::npos) << none.message;
  EXPECT_TRUE(none.placement.device_of.empty());

  const SolveResult greedy = solveLatencyGreedy(p);
  ASSERT_EQ(greedy.status, SolveStatus::Feasible);
  o.start = greedy.placement.device_of;
  LatencyIpSolution started = solveLatencyIpDetailed(p, o);
  EXPECT_EQ(started.result.status, SolveStatus::Feasible) << started.result.message;
  EXPECT_NEAR(started.result.value, greedy.value, 1e-9 * greedy.value);
  EXPECT_NEAR(started.start_latency, greedy.value, 1e-9 * greedy.value);
  expectConsistent(p, started, 1);
  // Stopped at once, the program still reports its floor: at least the simple bound (the fractional
  // critical path with the accelerators' share of the work), at most the start.
  auto simple = latencySimpleBound(p);
  ASSERT_TRUE(simple.hasValue()) << simple.status().message();
  EXPECT_GE(started.result.bound, simple->value * (1 - 1e-9));
  EXPECT_LE(started.result.bound, greedy.value * (1 + 1e-9));

  // A start with more level pieces than slots cannot be injected: with q = 1 and no heuristics the
  // solve has nothing to fall back on.
  std::vector<int> scattered(boost::num_vertices(p.graph), 0);
  for (std::size_t v = 1; v < scattered.size(); v += 2)
    scattered[v] = 2;  // 0 and 2 alternate
  o.start = scattered;
  Expected<LatencyEvaluation> e = evaluateLatency(p, scattered);
  ASSERT_TRUE(e.hasValue());
  if (e->subgraphs.size() > 1) {
    EXPECT_EQ(solveLatencyIp(p, o).status, SolveStatus::TimeLimit);
  }
}

TEST(LatencyIp, LayerBert24ReachesThePaperValue) {
  const Problem p = loadWorkload("latency-inputs/LayerGraphs/bert24_inference.json");
  LatencyIpOptions o = withSubgraphs(1);
  o.limits.time_limit = 5;
  const auto started = std::chrono::steady_clock::now();
  LatencyIpSolution s = solveLatencyIpDetailed(p, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(s.result.status == SolveStatus::Optimal || s.result.status == SolveStatus::Feasible)
      << s.result.message;
  EXPECT_LE(s.result.value, 100.22 + 0.005);  // Table 4
  expectConsistent(p, s, 1);
  std::printf("layer BERT-24: %.4f (bound %.4f, gap %.1f%%) in %.1f s; paper 100.22\n", s.result.value,
              s.result.bound, 100 * s.result.gap, seconds);
}

TEST(LatencyIp, LayerGnmtReachesThePaperValue) {
  const Problem p = loadWorkload("latency-inputs/LayerGraphs/gnmt_inference.json");
  LatencyIpOptions o = withSubgraphs(1);
  o.limits.time_limit = 5;
  const auto started = std::chrono::steady_clock::now();
  LatencyIpSolution s = solveLatencyIpDetailed(p, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(s.result.status == SolveStatus::Optimal || s.result.status == SolveStatus::Feasible)
      << s.result.message;
  EXPECT_LE(s.result.value, 227.86);  // Table 4: 225.6, within 1%
  EXPECT_LT(s.result.value, solveLatencyGreedy(p).value);
  expectConsistent(p, s, 1);
  std::printf("layer GNMT: %.4f (bound %.4f, gap %.1f%%) in %.1f s; paper 225.6\n", s.result.value,
              s.result.bound, 100 * s.result.gap, seconds);
}

}  // namespace latency_ip_test
}  // namespace placer::testing
