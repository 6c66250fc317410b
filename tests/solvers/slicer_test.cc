// The slicer against exhaustive search over every way to cut an order into runs and put each run on
// a device, on tiny random DAGs with memory, shared weights, unsupported nodes, CPU boundary costs
// and the three overlap modes; and DPL as the slicer on the DFS order, on every Table 1 workload.
#include "solvers/slicegraph/slicer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

#include "core/evaluate.h"
#include "passes/pass_manager.h"
#include "tests/graph_builder.h"
#include "tests/solvers/random_contracted.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace slicer_test {

// A DAG already in the DP's contracted form: forward nodes only, no colocation.
Problem tinyDag(std::mt19937& rng, int n) {
  std::uniform_real_distribution<double> cost(0.5, 6), comm(0, 2), mem(0, 40);
  GraphBuilder b({2, 70, 1});
  for (int v = 0; v < n; ++v) {
    const double p = cost(rng);
    b.node(p, p * (1.5 + cost(rng) / 3), mem(rng));
    if (rng() % 9 == 0) b.unsupported(v);
  }
  for (int v = 1; v < n; ++v) {
    const int u = static_cast<int>(rng() % static_cast<unsigned>(v));
    b.edge(u, v, comm(rng), comm(rng) / 2);
    if (v > 1 && rng() % 2 == 0) b.edge(static_cast<int>(rng() % static_cast<unsigned>(v)), v, comm(rng));
  }
  if (rng() % 2 == 0) b.sharedWeight(25, {0, n - 1});
  Problem p = b.build();
  p.objective.overlap = static_cast<Overlap>(rng() % 3);
  return p;
}

// A topological order from Kahn's algorithm with random priorities.
std::vector<Vertex> randomOrder(const Problem& p, std::mt19937& rng) {
  const OpGraph& g = p.graph;
  const std::size_t n = boost::num_vertices(g);
  std::vector<double> priority(n);
  for (double& x : priority)
    x = std::uniform_real_distribution<double>(0, 1)(rng);
  std::vector<int> indegree(n);
  for (Vertex v = 0; v < n; ++v)
    indegree[v] = static_cast<int>(boost::in_degree(v, g));
  std::vector<Vertex> ready, order;
  for (Vertex v = 0; v < n; ++v) {
    if (indegree[v] == 0) ready.push_back(v);
  }
  while (!ready.empty()) {
    auto best = std::max_element(ready.begin(), ready.end(),
                                 [&](Vertex a, Vertex b) { return priority[a] < priority[b]; });
    const Vertex v = *best;
    ready.erase(best);
    order.push_back(v);
    for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
      if (--indegree[boost::target(*it, g)] == 0) ready.push_back(boost::target(*it, g));
    }
  }
  return order;
}

// Every cut of `order` into runs, every run on an accelerator or a CPU core (each device at most one
// run): the least max-load of a valid split.
double bruteForce(const Problem& p, const std::vector<Vertex>& order) {
  const int n = static_cast<int>(order.size());
  const DeviceSet& d = p.devices;
  double best = kInfinity;
  for (unsigned cuts = 0; cuts < (1u << (n - 1)); ++cuts) {
    std::vector<int> run_of(n, 0);
    for (int i = 1; i < n; ++i)
      run_of[i] = run_of[i - 1] + ((cuts >> (i - 1)) & 1u);
    const int runs = run_of[n - 1] + 1;
    if (runs > d.count()) continue;
    for (unsigned kinds = 0; kinds < (1u << runs); ++kinds) {  // bit set: the run is on a CPU
      const int on_cpu = __builtin_popcount(kinds);
      if (on_cpu > d.cpus || runs - on_cpu > d.accelerators) continue;
      std::vector<int> device_of_run(runs);
      int next_acc = 0, next_cpu = d.accelerators;
      for (int r = 0; r < runs; ++r)
        device_of_run[r] = ((kinds >> r) & 1u) ? next_cpu++ : next_acc++;
      std::vector<int> device_of(boost::num_vertices(p.graph), -1);
      for (int i = 0; i < n; ++i)
        device_of[order[i]] = device_of_run[run_of[i]];
      for (Vertex v = 0; v < device_of.size(); ++v) {  // backward partners follow their forward nodes
        if (!p.graph[v].backward) continue;
        for (Vertex f : order) {
          if (p.graph[f].colocation == p.graph[v].colocation) device_of[v] = device_of[f];
        }
      }
      bool valid = true;
      for (Vertex v = 0; v < device_of.size() && valid; ++v)
        valid = !(d.isAccelerator(device_of[v]) && !p.graph[v].supportedOnAccelerator());
      const std::vector<double> memory = deviceMemory(p, device_of);
      for (int a = 0; a < d.accelerators && valid; ++a)
        valid = memory[a] <= d.memory;
      if (valid) best = std::min(best, evaluateThroughput(p, device_of).max_load);
    }
  }
  return best;
}

TEST(Slicer, IsOptimalForItsOrderAgainstExhaustiveCuts) {
  int feasible = 0;
  for (std::uint32_t seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    const Problem p = tinyDag(rng, 3 + static_cast<int>(seed % 6));
    const std::vector<Vertex> order = randomOrder(p, rng);
    const double expected = bruteForce(p, order);
    const SolveResult r = sliceOrder(p, order);
    if (!std::isfinite(expected)) {
      EXPECT_EQ(r.status, SolveStatus::Infeasible) << "seed " << seed;
      continue;
    }
    ++feasible;
    ASSERT_EQ(r.status, SolveStatus::Feasible) << "seed " << seed << ": " << r.message;
    EXPECT_NEAR(r.value, expected, 1e-9 * std::max(1.0, expected)) << "seed " << seed;
    EXPECT_TRUE(verify(p, r.placement).isOk()) << "seed " << seed << ": " << verify(p, r.placement).message();
    // Runs follow the order: the devices along it change only at a cut.
    std::set<int> closed;
    for (std::size_t i = 1; i < order.size(); ++i) {
      const int before = r.placement.device_of[order[i - 1]], after = r.placement.device_of[order[i]];
      if (before == after) continue;
      closed.insert(before);
      EXPECT_FALSE(closed.count(after)) << "seed " << seed << ": a device holds two runs";
    }
  }
  EXPECT_GT(feasible, 200);
}

// Training graphs: backward partners ride with their forward nodes; transfers between backward nodes
// run against the order.
TEST(Slicer, IsOptimalForItsOrderOnTrainingGraphs) {
  int feasible = 0;
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    const Problem p = randomContracted(rng, 3 + static_cast<int>(seed % 5), /*training=*/true, {2, 120, 1});
    const std::vector<Vertex> order = randomForwardOrder(p, rng);
    const double expected = bruteForce(p, order);
    const SolveResult r = sliceOrder(p, order);
    if (!std::isfinite(expected)) {
      EXPECT_EQ(r.status, SolveStatus::Infeasible) << "seed " << seed;
      continue;
    }
    ++feasible;
    ASSERT_EQ(r.status, SolveStatus::Feasible) << "seed " << seed << ": " << r.message;
    EXPECT_NEAR(r.value, expected, 1e-9 * std::max(1.0, expected)) << "seed " << seed;
    EXPECT_TRUE(verify(p, r.placement).isOk()) << "seed " << seed << ": " << verify(p, r.placement).message();
  }
  EXPECT_GT(feasible, 120);
}

// Below a bound the slicer computes only the cells whose prefix and rest can fit their devices at
// that load; the best slicing below the bound must survive bit for bit (its own value plus a hair),
// and none may appear strictly below the optimum. Random graphs with CPUs, unsupported nodes,
// memory, shared weights, training partners and overlap modes, from one accelerator and no CPU to
// four accelerators and three CPUs.
TEST(Slicer, PruningBelowABoundKeepsTheBestSlicing) {
  int checked = 0;
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    const DeviceSet devices{1 + static_cast<int>(seed % 4), 50.0 + 40.0 * (seed % 3),
                            static_cast<int>(seed % 4)};
    const Problem p = randomContracted(rng, 5 + static_cast<int>(seed % 30), seed % 3 == 0, devices);
    const UnitGraph units = makeUnitGraph(p);
    const std::vector<int> order = unitOrder(units, randomForwardOrder(p, rng));
    ASSERT_FALSE(order.empty());
    Slicer slicer(units);
    const double best = slicer.slice(order);
    if (!std::isfinite(best)) continue;
    ++checked;
    EXPECT_EQ(slicer.slice(order, best * (1 + 1e-12) + 1e-15), best) << "seed " << seed;
    EXPECT_EQ(slicer.slice(order, best), kInfinity) << "seed " << seed << ": a slicing below the best";
    EXPECT_EQ(slicer.slice(order, best * 4), best) << "seed " << seed;
  }
  EXPECT_GT(checked, 120);
}

TEST(Slicer, RefusesAnOrderThatIsNotTopological) {
  std::mt19937 rng(7);
  const Problem p = tinyDag(rng, 5);
  std::vector<Vertex> order = randomOrder(p, rng);
  std::reverse(order.begin(), order.end());
  const SolveResult r = sliceOrder(p, order);
  EXPECT_EQ(r.status, SolveStatus::Error);
  EXPECT_NE(r.message.find("before its predecessor"), std::string::npos) << r.message;
  EXPECT_EQ(sliceOrder(p, {0, 1}).status, SolveStatus::Error);
}

// DPL is the slicer on the DFS order: the same value on every Table 1 workload (reduced as the DP
// pipeline reduces them).
TEST(Slicer, OnTheDfsOrderIsDpl) {
  for (const char* file :
       {"LayerGraphs/bert24_inference.json", "LayerGraphs/bert24_training.json",
        "LayerGraphs/resnet50_inference.json", "LayerGraphs/resnet50_training.json",
        "LayerGraphs/gnmt_inference.json", "LayerGraphs/gnmt_training.json",
        "LayerGraphs/inceptionv3_inference.json", "LayerGraphs/inceptionv3_training.json",
        "OperatorGraphs/bert_l-3_inference.json", "OperatorGraphs/bert_l-6_inference.json",
        "OperatorGraphs/bert_l-12_inference.json", "OperatorGraphs/resnet50_inference.json",
        "OperatorGraphs/bert_l-3_training.json", "OperatorGraphs/bert_l-6_training.json",
        "OperatorGraphs/bert_L-12_training.json", "OperatorGraphs/resnet50_training.json"}) {
    Problem p = loadWorkload(std::string("throughput-inputs/") + file);
    PassRegistry registry;
    registerBuiltinPasses(registry);
    PassManager manager;
    PassOptions ctx;
    ASSERT_TRUE(manager.parsePipeline(registry, "subdivide,colocate,orphans,scc,fold-leaves").isOk());
    ASSERT_TRUE(manager.run(p, ctx).isOk()) << file;
    DpOptions dpl;
    dpl.linearize = true;
    const SolveResult expected = solveThroughputDp(p, dpl);
    const SolveResult sliced = sliceOrder(p, dfsForwardOrder(p));
    ASSERT_EQ(sliced.status, SolveStatus::Feasible) << file << ": " << sliced.message;
    // The same slicing problem; the two sum their costs in different orders, so equal to rounding.
    EXPECT_NEAR(sliced.value, expected.value, 1e-9 * expected.value) << file;
    EXPECT_TRUE(verify(p, sliced.placement).isOk()) << file << ": " << verify(p, sliced.placement).message();
  }
}

}  // namespace slicer_test
}  // namespace placer::testing
