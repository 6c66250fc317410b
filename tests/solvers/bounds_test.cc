// Lower bounds (solvers/bounds/): every bound is at most the optimum — the published Table 1 optima
// (contiguous), and exhaustive search over every placement, contiguous or not, on tiny random
// problems with CPUs, memory limits, shared weights, colocation, training pairs and every overlap
// mode (throughput, GPipe and latency) — and the relaxation's value where it can be worked out by
// hand.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "core/evaluate.h"
#include "core/latency.h"
#include "solvers/bounds/bottleneck_mip.h"
#include "solvers/bounds/boundary_floors.h"
#include "solvers/bounds/latency_path_bound.h"
#include "solvers/bounds/path_runs_bound.h"
#include "solvers/bounds/simple_bound.h"
#include "passes/pass_manager.h"
#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace bounds_test {

// Four nodes of 1 on an accelerator and 2 on a CPU, no edges.
Problem fourIndependentNodes(DeviceSet devices, double memory_per_node = 0) {
  GraphBuilder b(devices);
  for (int i = 0; i < 4; ++i)
    b.node(1.0, 2.0, memory_per_node);
  return b.build();
}

TEST(SimpleBound, WorkRelaxationByHand) {
  // 2 accelerators and 1 CPU: a fraction a on accelerators, 4a <= 2T and 8(1 - a) <= T give
  // T = 1.6; but the nodes are whole: below T = 2 each device holds at most one node (the CPU none),
  // so the pigeonhole part proves the optimum, 2 (two nodes on each accelerator, or one on the CPU).
  auto bound = throughputSimpleBound(fourIndependentNodes({2, 1e9, 1}));
  ASSERT_TRUE(bound.hasValue()) << bound.status().message();
  EXPECT_NEAR(bound->value, 2.0, 1e-6);
  EXPECT_EQ(bound->reason, "pigeonhole");
  // Ten such nodes: the relaxation's 10a <= 2T, 20 (1 - a) <= T give T = 4, as does counting, and
  // it is the optimum (four on each accelerator, two on the CPU).
  GraphBuilder ten({2, 1e9, 1});
  for (int i = 0; i < 10; ++i)
    ten.node(1.0, 2.0);
  auto work = throughputSimpleBound(ten.build());
  ASSERT_TRUE(work.hasValue());
  EXPECT_NEAR(work->value, 4.0, 1e-6);
  EXPECT_LE(work->value, 4.0);
  // Each accelerator holds one node's memory: at most 2 of the 4 nodes fit, so the CPU runs 2 nodes
  // (8 (1 - a) <= T with 4a <= 2): T = 4, the optimum.
  auto memory = throughputSimpleBound(fourIndependentNodes({2, 1.0, 1}, 1.0));
  ASSERT_TRUE(memory.hasValue());
  EXPECT_NEAR(memory->value, 4.0, 1e-6);
  // Accelerators only: the average, 4 / 2.
  auto only = throughputSimpleBound(fourIndependentNodes({2, 1e9, 0}));
  ASSERT_TRUE(only.hasValue());
  EXPECT_NEAR(only->value, 2.0, 1e-6);
}

TEST(SimpleBound, WholeUnitsByHand) {
  // Seven nodes of 3 on 3 accelerators: the work relaxation gives 7, but some accelerator holds
  // three of them: 9, the optimum.
  GraphBuilder seven({3, 1e9, 0});
  for (int i = 0; i < 7; ++i)
    seven.node(3.0, 30.0);
  auto counted = throughputSimpleBound(seven.build());
  ASSERT_TRUE(counted.hasValue()) << counted.status().message();
  EXPECT_NEAR(counted->value, 9.0, 1e-6);
  EXPECT_EQ(counted->reason, "pigeonhole");
  // Nodes of 8, 5, 4 and 3 on 2 accelerators: the relaxation gives 10 and counting 9 (some
  // accelerator holds two of 8, 5, 4); the optimum is 11 (8 + 3 against 5 + 4), which the packing
  // program proves.
  GraphBuilder mixed({2, 1e9, 0});
  for (double p : {8.0, 5.0, 4.0, 3.0})
    mixed.node(p, 10 * p);
  auto packed = throughputSimpleBound(mixed.build());
  ASSERT_TRUE(packed.hasValue()) << packed.status().message();
  EXPECT_NEAR(packed->value, 11.0, 1e-5);
  EXPECT_LE(packed->value, 11.0);
  EXPECT_EQ(packed->reason, "packing");
  // Memory that lets an accelerator hold one node: of 8, 5 and 4 the CPU (ten times slower) must
  // run one, at best the 4: 40, the optimum.
  GraphBuilder tight({2, 1.0, 1});
  for (double p : {8.0, 5.0, 4.0})
    tight.node(p, 10 * p, 1.0);
  auto held = throughputSimpleBound(tight.build());
  ASSERT_TRUE(held.hasValue()) << held.status().message();
  EXPECT_NEAR(held->value, 40.0, 1e-4);
  EXPECT_LE(held->value, 40.0);
}

TEST(SimpleBound, LargestNodeAndColocationClasses) {
  GraphBuilder b({4, 1e9, 0});
  const int big = b.node(10.0, 20.0);
  b.node(1.0, 2.0);
  b.node(1.0, 2.0);
  b.edge(big, 1, 0.1).edge(1, 2, 0.1);
  auto bound = throughputSimpleBound(b.build());
  ASSERT_TRUE(bound.hasValue());
  EXPECT_NEAR(bound->compute, 10.0, 1e-9);
  // Along the chain: the big node's device holds the chain whole (12) or sends its output (10.1),
  // which is the optimum.
  EXPECT_NEAR(bound->value, 10.1, 1e-6);
  EXPECT_EQ(bound->reason, "transfers");
  // Colocated, the two small nodes and the big one are one unit of 12.
  b.colocate(0, 7).colocate(1, 7).colocate(2, 7);
  auto colocated = throughputSimpleBound(b.build());
  ASSERT_TRUE(colocated.hasValue());
  EXPECT_NEAR(colocated->value, 12.0, 1e-9);
}

TEST(SimpleBound, SharedWeightsCountOncePerAccelerator) {
  // Two nodes read one weight of 1 byte; each accelerator holds 1 byte. One accelerator can hold
  // both (the weight once), so the bound is the work bound 2 / 2 = 1, not a memory overflow.
  GraphBuilder b({2, 1.0, 1});
  b.node(2.0, 100.0);
  b.node(2.0, 100.0);
  b.sharedWeight(1.0, {0, 1});
  auto bound = throughputSimpleBound(b.build());
  ASSERT_TRUE(bound.hasValue());
  EXPECT_NEAR(bound->value, 2.0, 1e-6);
}

TEST(SimpleBound, InfeasibleWhenNoDeviceFits) {
  GraphBuilder b({2, 1.0, 0});
  b.node(1.0, 1.0, 5.0, "huge");
  auto bound = throughputSimpleBound(b.build());
  ASSERT_FALSE(bound.hasValue());
  EXPECT_EQ(bound.status().code(), StatusCode::Infeasible);
  EXPECT_NE(bound.status().message().find("\"huge\""), std::string::npos) << bound.status().message();
  EXPECT_NE(bound.status().message().find("memory"), std::string::npos) << bound.status().message();
}

TEST(SimpleBound, LatencyIsAtLeastTheCheapestPath) {
  // A chain 1 -> 2 -> 3 of accelerator time 1 each and CPU time 5: the path takes 3 at best.
  GraphBuilder b({3, 1e9, 1});
  for (int i = 0; i < 3; ++i)
    b.node(1.0, 5.0);
  b.edge(0, 1, 0.5).edge(1, 2, 0.5);
  Problem p = b.build();
  p.objective.goal = Goal::Latency;
  auto bound = latencySimpleBound(p);
  ASSERT_TRUE(bound.hasValue()) << bound.status().message();
  EXPECT_NEAR(bound->value, 3.0, 1e-6);
}

// Memory forces a chain onto several accelerator runs, and every run boundary costs its transfers:
// the path bound sees both; the fractional critical path sees neither.
TEST(SimpleBound, LatencyPathPaysTheTransfersMemoryForces) {
  // a -> b -> c, 1 on an accelerator and 10 on the CPU each, 0.6 of an accelerator's memory each,
  // transfers of 2. No two nodes share an accelerator run, so the best cut is three accelerator
  // runs: (0 + 1 + 2) + (2 + 1 + 2) + (2 + 1 + 0) = 11, against 3 without transfers. (The optimum is
  // 18: two accelerators hold only two of the nodes.)
  GraphBuilder b({2, 1.0, 1});
  for (int i = 0; i < 3; ++i)
    b.node(1.0, 10.0, 0.6);
  b.edge(0, 1, 2.0).edge(1, 2, 2.0);
  Problem p = b.build();
  p.objective.goal = Goal::Latency;
  std::vector<bool> yes(3, true);
  EXPECT_NEAR(pathLatencyBound(p, {0, 1, 2}, yes, yes).value, 11.0, 1e-12);
  auto bound = latencySimpleBound(p);
  ASSERT_TRUE(bound.hasValue()) << bound.status().message();
  EXPECT_NEAR(bound->value, 11.0, 1e-9);
  EXPECT_EQ(bound->reason, "transfers");
  // With room for the whole chain on one accelerator, one run: 3. Without a CPU, the same.
  p.devices.memory = 2.0;
  EXPECT_NEAR(pathLatencyBound(p, {0, 1, 2}, yes, yes).value, 3.0, 1e-12);
  // Nothing on an accelerator: the CPU's 30.
  EXPECT_NEAR(pathLatencyBound(p, {0, 1, 2}, std::vector<bool>(3, false), yes).value, 30.0, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Exhaustive search over every placement (contiguous or not) of tiny random problems.

struct RandomCase {
  Problem problem;
  std::string description;
};

// n: fewest nodes; 0, 1 or 2 more at random.
RandomCase randomCase(std::uint32_t seed, int fewest_nodes = 4) {
  std::mt19937 rng(seed);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto chance = [&](double p) { return uniform(0, 1) < p; };
  const int accelerators = 1 + static_cast<int>(rng() % 3);
  const int cpus = static_cast<int>(rng() % 2);
  const int n = fewest_nodes + static_cast<int>(rng() % 3);
  const double memory = chance(0.5) ? uniform(1.0, 3.0) : 1e9;
  GraphBuilder b({accelerators, memory, cpus});
  const bool training = chance(0.25);
  for (int v = 0; v < n; ++v) {
    b.node(uniform(0.1, 2.0), uniform(0.2, 6.0), chance(0.6) ? uniform(0.0, 1.5) : 0.0);
    if (cpus > 0 && chance(0.15)) b.unsupported(v);
  }
  for (int v = 1; v < n; ++v) {
    b.edge(static_cast<int>(rng() % v), v, uniform(0.0, 1.0), chance(0.3) ? uniform(0.0, 0.3) : 0.0);
    if (chance(0.4)) b.edge(static_cast<int>(rng() % v), v, uniform(0.0, 1.0));
  }
  if (training && n >= 4) {  // the last node is the backward partner of the first
    b.backward(n - 1).colocate(0, 1).colocate(n - 1, 1);
  } else if (chance(0.25)) {
    b.colocate(1, 2).colocate(2, 2);
  }
  if (chance(0.4)) b.sharedWeight(uniform(0.2, 1.0), {0, n - 2});
  const Overlap overlaps[] = {Overlap::None, Overlap::Max, Overlap::Duplex};
  b.overlap(overlaps[rng() % 3]);
  Problem p = b.build();
  std::string d = "seed " + std::to_string(seed) + ": " + std::to_string(n) + " nodes, " +
                  std::to_string(accelerators) + " accelerator(s) of " + std::to_string(memory) + " bytes, " +
                  std::to_string(cpus) + " cpu(s)";
  return {std::move(p), d};
}

// Every assignment of devices to nodes, in lexicographic order; false after the last.
bool nextAssignment(std::vector<int>& device_of, int devices) {
  for (int& d : device_of) {
    if (++d < devices) return true;
    d = 0;
  }
  return false;
}

// The problem's constraints except the pipeline order: unsupported nodes, memory, colocation.
bool allowed(const Problem& problem, const std::vector<int>& device_of, const Evaluation& eval) {
  const OpGraph& g = problem.graph;
  const DeviceSet& d = problem.devices;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (d.isAccelerator(device_of[v]) && !g[v].supportedOnAccelerator()) return false;
    for (Vertex u = 0; u < v; ++u) {
      if (g[v].colocation && g[u].colocation == g[v].colocation && device_of[u] != device_of[v]) return false;
    }
  }
  for (int a = 0; a < d.accelerators; ++a) {
    if (eval.devices[a].memory > d.memory * (1 + 1e-12)) return false;
  }
  return true;
}

TEST(SimpleBound, NeverAboveExhaustiveSearchOverEveryPlacement) {
  int checked = 0, latency_checked = 0, tight = 0, bottleneck_gain = 0, contiguous_checked = 0;
  int guess_gain = 0, guess_tight = 0, latency_transfers = 0, latency_tight = 0;
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    RandomCase c = randomCase(seed);
    SCOPED_TRACE(c.description);
    const Problem& p = c.problem;
    const int n = static_cast<int>(boost::num_vertices(p.graph));
    double best = kInfinity, best_gpipe = kInfinity, best_latency = kInfinity;
    std::vector<int> device_of(n, 0);
    do {
      const Evaluation eval = evaluateThroughput(p, device_of);
      if (!allowed(p, device_of, eval)) continue;
      best = std::min(best, eval.max_load);
      best_gpipe = std::min(best_gpipe, gpipeObjective(p, device_of));
      auto latency = evaluateLatency(p, device_of);
      if (latency && latency->valid()) best_latency = std::min(best_latency, latency->latency);
    } while (nextAssignment(device_of, p.devices.count()));

    auto bound = throughputSimpleBound(p);
    if (!std::isfinite(best)) {
      // No placement at all: the bound may say so, or bound nothing it could not see.
      continue;
    }
    ASSERT_TRUE(bound.hasValue()) << bound.status().message();
    EXPECT_LE(bound->value, best * (1 + 1e-9)) << "max-load";
    EXPECT_LE(bound->value, best_gpipe * (1 + 1e-9)) << "GPipe objective";
    EXPECT_GT(bound->value, 0);
    tight += bound->value >= best * (1 - 1e-6);
    ++checked;
    // The bottleneck program over every placement: at most the exhaustive optimum, at least its
    // threshold; over contiguous splits: at most the exact DP's optimum.
    auto any = bottleneckBound(p, /*contiguous=*/false, bound->compute, Budget::unlimited());
    ASSERT_TRUE(any.hasValue()) << any.status().message();
    EXPECT_LE(any->value, best * (1 + 1e-9)) << "bottleneck, any: " << any->detail;
    EXPECT_GE(any->value, bound->compute * (1 - 1e-8));
    EXPECT_FALSE(any->cut_short);
    bottleneck_gain += any->value > bound->value * (1 + 1e-6);
    auto dp = runPipeline(p, defaultPipeline("dp"));
    if (dp && dp->solve.status == SolveStatus::Optimal) {
      auto contiguous = bottleneckBound(p, /*contiguous=*/true, bound->compute, Budget::unlimited());
      ASSERT_TRUE(contiguous.hasValue()) << contiguous.status().message();
      EXPECT_LE(contiguous->value, dp->solve.value * (1 + 1e-9)) << "bottleneck, contiguous: " << contiguous->detail;
      EXPECT_GE(contiguous->value, any->value * (1 - 1e-6));
      auto guess = guessBottleneckBound(p, bound->compute, Budget::unlimited());
      ASSERT_TRUE(guess.hasValue()) << guess.status().message();
      EXPECT_LE(guess->value, dp->solve.value * (1 + 1e-9)) << "guess the bottleneck: " << guess->detail;
      EXPECT_GE(guess->value, bound->compute * (1 - 1e-8));
      EXPECT_FALSE(guess->cut_short);
      guess_gain += guess->value > contiguous->value * (1 + 1e-6);
      guess_tight += guess->value >= dp->solve.value * (1 - 1e-6);
      ++contiguous_checked;
    }
    if (std::isfinite(best_latency)) {
      Problem latency_problem = p;
      latency_problem.objective.goal = Goal::Latency;
      auto latency_bound = latencySimpleBound(latency_problem);
      ASSERT_TRUE(latency_bound.hasValue()) << latency_bound.status().message();
      EXPECT_LE(latency_bound->value, best_latency * (1 + 1e-9)) << "latency (" << latency_bound->reason << ")";
      EXPECT_GT(latency_bound->value, 0);
      ++latency_checked;
      latency_transfers += latency_bound->reason == "transfers";
      latency_tight += latency_bound->value >= best_latency * (1 - 1e-6);
    }
  }
  EXPECT_GE(checked, 120);
  EXPECT_GE(latency_checked, 100);
  EXPECT_GT(tight, 0) << "the bound is never the optimum: too weak to be useful";
  EXPECT_GE(contiguous_checked, 100);
  EXPECT_GT(bottleneck_gain, 0) << "the bottleneck program never improves on the simple bound";
  EXPECT_GT(guess_gain, 0) << "guessing the bottleneck never improves on the three-superblock program";
  EXPECT_GT(latency_transfers, 0) << "the latency path bound never improves on the fractional critical path";
  std::printf("latency: the path bound above the fractional critical path in %d cases, the optimum in %d\n",
              latency_transfers, latency_tight);
  std::printf("simple bound: %d throughput cases (%d tight), %d latency cases; bottleneck above it in %d, "
              "%d contiguous cases against the DP; guess above the contiguous bottleneck in %d, the DP "
              "optimum in %d\n",
              checked, tight, latency_checked, bottleneck_gain, contiguous_checked, guess_gain, guess_tight);
}

// The transfers part (solvers/bounds/path_runs_bound.h) on longer graphs, where the path has more
// ways to be cut: on its own (from a floor of 0, so that the count does not depend on how far the
// packing program got in its time) and within the simple bound, never above the optimum over every
// placement, and the optimum itself in some.
TEST(SimpleBound, TransfersNeverAboveExhaustiveSearchOnLongerGraphs) {
  int checked = 0, tight = 0, contracted_checked = 0, cyclic = 0;
  for (std::uint32_t seed = 1001; seed <= 1100; ++seed) {
    RandomCase c = randomCase(seed, 7);
    SCOPED_TRACE(c.description);
    Problem& p = c.problem;
    const std::size_t n = boost::num_vertices(p.graph);
    // In every other case, two forward nodes without a class that a third node lies between share
    // a new one, so that contracting it closes a cycle.
    for (auto [e, end] = boost::edges(p.graph); e != end && seed % 2 == 0; ++e) {
      const Vertex u = boost::source(*e, p.graph), w = boost::target(*e, p.graph);
      if (p.graph[u].colocation || p.graph[u].backward || p.graph[w].backward) continue;
      auto [f, f_end] = boost::out_edges(w, p.graph);
      for (; f != f_end; ++f) {
        const Vertex v = boost::target(*f, p.graph);
        if (p.graph[v].colocation || p.graph[v].backward || v == u) continue;
        p.graph[u].colocation = p.graph[v].colocation = 1000;
        break;
      }
      if (p.graph[u].colocation) break;  // one new class
    }
    double best = kInfinity;
    std::vector<int> device_of(n, 0);
    do {
      const Evaluation eval = evaluateThroughput(p, device_of);
      if (allowed(p, device_of, eval)) best = std::min(best, eval.max_load);
    } while (nextAssignment(device_of, p.devices.count()));
    if (!std::isfinite(best)) continue;
    auto bound = throughputSimpleBound(p);
    ASSERT_TRUE(bound.hasValue()) << bound.status().message();
    EXPECT_LE(bound->value, best * (1 + 1e-9)) << bound->reason;
    EXPECT_LE(bound->compute, bound->value);
    // Which kinds may hold a node: a superset of where any placement puts it is enough.
    std::vector<bool> can_accelerator(n), can_cpu(n);
    const std::vector<double> alone = standaloneMemory(p);
    for (Vertex v = 0; v < n; ++v) {
      can_accelerator[v] = p.devices.accelerators > 0 && p.graph[v].supportedOnAccelerator() && alone[v] <= p.devices.memory;
      can_cpu[v] = p.devices.cpus > 0 && std::isfinite(p.graph[v].p_cpu);
    }
    const PathRunsBound along = pathRunsBound(p, can_accelerator, can_cpu, 0.0);
    EXPECT_LE(along.value, best * (1 + 1e-9)) << "transfers alone";
    EXPECT_FALSE(along.cut_short);
    ++checked;
    tight += along.value >= best * (1 - 1e-6);
    // Each colocation class contracted to one node per side, as the colocate pass does (a class of
    // two forward nodes with a path between them closes a cycle): the same placements, so the same
    // optimum bounds it.
    std::vector<int> group_of(n);
    std::map<std::pair<int, bool>, int> group_of_class;
    int groups = 0;
    for (Vertex v = 0; v < n; ++v) {
      if (!p.graph[v].colocation) {
        group_of[v] = groups++;
        continue;
      }
      auto [it, inserted] = group_of_class.try_emplace({*p.graph[v].colocation, p.graph[v].backward}, groups);
      groups += inserted;
      group_of[v] = it->second;
    }
    if (groups == static_cast<int>(n)) continue;
    const Problem contracted = contractGroups(p, group_of, groups);
    std::vector<bool> unit_on_accelerator(groups, true), unit_on_cpu(groups, true);
    for (Vertex v = 0; v < n; ++v) {
      unit_on_accelerator[group_of[v]] = unit_on_accelerator[group_of[v]] && can_accelerator[v];
      unit_on_cpu[group_of[v]] = unit_on_cpu[group_of[v]] && can_cpu[v];
    }
    const PathRunsBound on_units = pathRunsBound(contracted, unit_on_accelerator, unit_on_cpu, 0.0);
    EXPECT_LE(on_units.value, best * (1 + 1e-9)) << "transfers on the contracted classes";
    ++contracted_checked;
    cyclic += !findCycle(contracted.graph, false).empty();
  }
  EXPECT_GE(checked, 80);
  EXPECT_GT(tight, 5) << "the path's transfers rarely reach the optimum";
  EXPECT_GT(cyclic, 5) << "too few contracted graphs with a cycle to test the order that breaks them";
  std::printf("transfers: alone the optimum in %d of %d cases; %d contracted, %d of them cyclic\n", tight,
              checked, contracted_checked, cyclic);
}

// The boundary floors (solvers/bounds/boundary_floors.h) on a chain of six nodes of 1 with nets of
// 0.5 on three accelerators: every node but the first reads 0.5 and every node but the last sends 0.5,
// so the three receive at least 2 x 0.5 and send at least 2 x 0.5 (the first and the last may hold
// the chain's ends), and the work relaxation's 6 / 3 becomes (6 + 2) / 3. The optimum is 3 (two
// nodes each: 2.5, 3, 2.5).
TEST(SimpleBound, BoundaryFloorsByHand) {
  GraphBuilder b(DeviceSet{3, 1e18, 0});
  for (int v = 0; v < 6; ++v) {
    b.node(1.0, 5.0);
    if (v > 0) b.edge(v - 1, v, 0.5);
  }
  Problem p = b.build();
  const BoundaryFloors floors = boundaryFloors(p);
  EXPECT_NEAR(floors.total, 2.0, 1e-12);
  EXPECT_NEAR(floors.per_set, 1.0, 1e-12);
  auto work = workBound(p, kInfinity, Budget::unlimited());
  ASSERT_TRUE(work.hasValue() && work->has_value());
  EXPECT_NEAR(**work, 8.0 / 3, 1e-6);
  // Not where transfers overlap the computation, and not on a graph with a cycle.
  p.objective.overlap = Overlap::Max;
  work = workBound(p, kInfinity, Budget::unlimited());
  ASSERT_TRUE(work.hasValue() && work->has_value());
  EXPECT_NEAR(**work, 2.0, 1e-6);
  p.objective.overlap = Overlap::None;
  boost::add_edge(5, 0, OpEdge{0.5}, p.graph);
  EXPECT_EQ(boundaryFloors(p).total, 0.0);
}

// Tiny problems where transfers weigh as much as the work: 5-7 nodes of 0.2-1 on 2-4 accelerators
// (and at times a CPU core), each node reading one or two earlier ones' outputs of 0.2-1, no overlap.
Problem transferHeavyCase(std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  const int n = 5 + static_cast<int>(rng() % 3);
  GraphBuilder b({2 + static_cast<int>(rng() % 3), 1e18, static_cast<int>(rng() % 4 == 0)});
  for (int v = 0; v < n; ++v) {
    b.node(uniform(0.2, 1.0), uniform(0.5, 3.0));
    if (v == 0) continue;
    const int from = v - 1 - static_cast<int>(rng() % std::min(v, 2));
    b.edge(from, v, uniform(0.2, 1.0), uniform(0.0, 0.3));
    if (v > 1 && rng() % 3 == 0) b.edge(static_cast<int>(rng() % (v - 1)), v, uniform(0.2, 1.0));
  }
  return b.build();
}

// A chain of k nodes on k accelerators, nets of c, where one node per accelerator gives every
// accelerator the load L: the ends compute L - c, the middle ones L - 2c. The floors count all of
// that chain's 2 (k - 1) c of transfers, so they prove L, the optimum.
Problem balancedChain(std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  const int k = 2 + static_cast<int>(rng() % 3);
  const double c = uniform(0.2, 1.0), load = uniform(3.0, 5.0);
  GraphBuilder b({k, 1e18, 0});
  for (int v = 0; v < k; ++v) {
    b.node(load - c * ((v > 0) + (v + 1 < k)), 10 * load);
    if (v > 0) b.edge(v - 1, v, c);
  }
  return b.build();
}

// Never above the optimum over every placement of tiny random problems (without overlap, where they
// apply), and above the work relaxation alone in some, up to the optimum.
TEST(SimpleBound, BoundaryFloorsNeverAboveExhaustiveSearch) {
  int checked = 0, raised = 0, tight = 0;
  int balanced = 0;
  for (std::uint32_t seed = 2001; seed <= 2330; ++seed) {
    RandomCase c = seed <= 2150   ? randomCase(seed, 5)
                   : seed <= 2300 ? RandomCase{transferHeavyCase(seed), "transfer-heavy"}
                                  : RandomCase{balancedChain(seed), "balanced chain"};
    SCOPED_TRACE(c.description + " (seed " + std::to_string(seed) + ")");
    Problem& p = c.problem;
    p.objective.overlap = Overlap::None;
    double best = kInfinity;
    std::vector<int> device_of(boost::num_vertices(p.graph), 0);
    do {
      const Evaluation eval = evaluateThroughput(p, device_of);
      if (allowed(p, device_of, eval)) best = std::min(best, eval.max_load);
    } while (nextAssignment(device_of, p.devices.count()));
    if (!std::isfinite(best)) continue;
    auto floored = workBound(p, kInfinity, Budget::unlimited());
    ASSERT_TRUE(floored.hasValue() && floored->has_value()) << floored.status().message();
    EXPECT_LE(**floored, best * (1 + 1e-9));
    // The relaxation alone: the same problem with free transfers.
    Problem free_transfers = p;
    for (Net& net : free_transfers.nets)
      net.cost = 0;
    auto work = workBound(free_transfers, kInfinity, Budget::unlimited());
    ASSERT_TRUE(work.hasValue() && work->has_value());
    EXPECT_GE(**floored, **work * (1 - 1e-9));
    ++checked;
    raised += **floored > **work * (1 + 1e-6);
    tight += **floored >= best * (1 - 1e-6);
    if (seed > 2300) {
      EXPECT_NEAR(**floored, best, 1e-6 * best) << "a balanced chain's floors are its optimum";
      ++balanced;
    }
  }
  EXPECT_EQ(balanced, 30);
  EXPECT_GE(checked, 300);
  EXPECT_GT(raised, 100) << "the floors rarely raise the work relaxation";
  EXPECT_GT(tight, 5) << "the floors never reach the optimum";
  std::printf("boundary floors: above the work relaxation in %d of %d cases, the optimum in %d\n", raised,
              checked, tight);
}

// Table 1: the bound never exceeds a published optimum, and is within a factor 2 of it.
TEST(SimpleBound, BelowEveryPublishedOptimum) {
  struct Case {
    const char* workload;
    double optimum;
  };
  const Case cases[] = {
      {"throughput-inputs/LayerGraphs/bert24_inference.json", 17.78990625},
      {"throughput-inputs/LayerGraphs/gnmt_training.json", 107.004414063},
      {"throughput-inputs/LayerGraphs/resnet50_inference.json", 33.774666015625},
      {"throughput-inputs/OperatorGraphs/bert_l-3_inference.json", 27.9185676799},
      {"throughput-inputs/OperatorGraphs/bert_l-12_inference.json", 147.477984449},
      {"throughput-inputs/OperatorGraphs/resnet50_training.json", 255.194416452},
      {"throughput-inputs/LayerGraphs/inceptionv3_inference.json", 51.5518635864},
  };
  for (const Case& c : cases) {
    auto bound = throughputSimpleBound(loadWorkload(c.workload));
    ASSERT_TRUE(bound.hasValue()) << c.workload << ": " << bound.status().message();
    EXPECT_LE(bound->value, c.optimum * (1 + 1e-9)) << c.workload;
    // Weak where communication dominates (ResNet-50 training ops: x2.25), never worse than x2.5.
    EXPECT_GE(bound->value, c.optimum / 2.5) << c.workload;
    std::printf("%-60s bound %.6g, optimum %.6g, ratio %.4f\n", c.workload, bound->value, c.optimum,
                c.optimum / bound->value);
  }
}

// Stopped at once, the bottleneck program still returns a valid bound (at least its threshold, at most
// the optimum) and says it was cut short.
TEST(BottleneckBound, CutShortStillBounds) {
  const Problem p = loadWorkload("throughput-inputs/OperatorGraphs/bert_l-12_inference.json");
  auto simple = throughputSimpleBound(p);
  ASSERT_TRUE(simple.hasValue());
  auto cut = bottleneckBound(p, /*contiguous=*/true, simple->compute, Budget(0.01, nullptr));
  ASSERT_TRUE(cut.hasValue()) << cut.status().message();
  EXPECT_TRUE(cut->cut_short) << cut->detail;
  EXPECT_GE(cut->value, simple->compute * (1 - 1e-8));
  EXPECT_LE(cut->value, 147.477984449);  // Table 1's optimum
  EXPECT_NE(cut->detail.find("cut short"), std::string::npos) << cut->detail;
}

TEST(BottleneckBound, RefusesObjectivesItDoesNotBound) {
  Problem p = fourIndependentNodes({2, 1e9, 1});
  p.objective.goal = Goal::Latency;
  EXPECT_FALSE(bottleneckBound(p, true, 1.0, Budget::unlimited()).hasValue());
  p.objective.goal = Goal::Throughput;
  p.objective.gpipe = true;
  EXPECT_FALSE(bottleneckBound(p, true, 1.0, Budget::unlimited()).hasValue());
}

}  // namespace bounds_test
}  // namespace placer::testing
