// SliceGraph's order search and auto: never below the exact DP's optimum and never worse than DPL on
// every Table 1 workload and on random DAGs; reproducible for a seed and independent of the number
// of threads; Kahn's algorithm recovers an order from its priorities; auto answers with the DP's
// optimum when the DP finishes and with a verified split when the lattice is too large.
#include <gtest/gtest.h>

#include <cmath>

#include "core/evaluate.h"
#include "passes/pass_manager.h"
#include "solvers/auto_solver.h"
#include "solvers/slicegraph/orders.h"
#include "solvers/slicegraph/solve.h"
#include "tests/graph_builder.h"
#include "tests/solvers/random_contracted.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace slicegraph_search_test {

// The 16 Table 1 workloads with the published DP optima (the reference's full digits).
const std::vector<std::pair<const char*, double>> kTable1 = {
    {"LayerGraphs/bert24_inference.json", 17.78990625},
    {"LayerGraphs/bert24_training.json", 41.7458125},
    {"LayerGraphs/gnmt_inference.json", 32.9106582031},
    {"LayerGraphs/gnmt_training.json", 107.004414063},
    {"LayerGraphs/resnet50_inference.json", 33.774666015625},
    {"LayerGraphs/resnet50_training.json", 78.6318125},
    {"LayerGraphs/inceptionv3_inference.json", 51.5518635864},
    {"LayerGraphs/inceptionv3_training.json", 122.76},
    {"OperatorGraphs/bert_l-3_inference.json", 27.9185676799},
    {"OperatorGraphs/bert_l-6_inference.json", 29.5795058065},
    {"OperatorGraphs/bert_l-12_inference.json", 147.477984449},
    {"OperatorGraphs/resnet50_inference.json", 124.348849774},
    {"OperatorGraphs/bert_l-3_training.json", 65.3031491221},
    {"OperatorGraphs/bert_l-6_training.json", 72.8649663224},
    {"OperatorGraphs/bert_L-12_training.json", 437.997637858},
    {"OperatorGraphs/resnet50_training.json", 255.194416452},
};

OrderSearchOptions searchOptions(const std::string& phases, std::uint64_t seed = 1, int threads = 0) {
  OrderSearchOptions options;
  options.phases = *parseOrderPhases(phases);
  options.seed = seed;
  options.threads = threads;
  return options;
}

TEST(SliceGraph, NeverBelowTheOptimumNorWorseThanDplOnTable1) {
  for (const auto& [file, optimum] : kTable1) {
    const Problem p = reducedForDp(loadWorkload(std::string("throughput-inputs/") + file));
    const SolveResult dpl = sliceOrder(p, dfsForwardOrder(p));
    const SolveResult r = solveSliceGraph(p, searchOptions("mla-weighted,random:30,brkga:16:4"));
    ASSERT_EQ(r.status, SolveStatus::Feasible) << file << ": " << r.message;
    EXPECT_TRUE(verify(p, r.placement).isOk()) << file << ": " << verify(p, r.placement).message();
    EXPECT_GE(r.value, optimum * (1 - 1e-4)) << file << ": below the published optimum";
    EXPECT_LE(r.value, dpl.value * (1 + 1e-12)) << file << ": worse than DPL";
    EXPECT_LE(r.value, optimum * 1.05) << file << ": more than 5% above the optimum";
    EXPECT_GT(r.stats.orders, 40) << file;
  }
}

TEST(SliceGraph, NeverBelowTheOptimumNorWorseThanDplOnRandomDags) {
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed);
    const Problem p = randomContracted(rng, 6 + static_cast<int>(seed % 10), seed % 3 == 0, {3, 90, 1});
    DpOptions exact_options;
    const SolveResult exact = solveThroughputDp(p, exact_options);
    const SolveResult dpl = sliceOrder(p, dfsForwardOrder(p));
    const SolveResult r = solveSliceGraph(p, searchOptions("mla,random:20,brkga:10:3", seed));
    if (exact.status == SolveStatus::Infeasible) {
      EXPECT_NE(r.status, SolveStatus::Feasible) << "seed " << seed;
      continue;
    }
    ASSERT_EQ(exact.status, SolveStatus::Optimal) << "seed " << seed;
    ASSERT_EQ(r.status, SolveStatus::Feasible) << "seed " << seed << ": " << r.message;
    EXPECT_GE(r.value, exact.value * (1 - 1e-9)) << "seed " << seed;
    if (dpl.status == SolveStatus::Feasible) {
      EXPECT_LE(r.value, dpl.value * (1 + 1e-12)) << "seed " << seed;
    }
    EXPECT_TRUE(verify(p, r.placement).isOk()) << "seed " << seed << ": " << verify(p, r.placement).message();
  }
}

// The same seed gives the same split whatever the number of threads; another seed searches other
// orders.
TEST(SliceGraph, ReproducibleForASeedAndIndependentOfThreads) {
  const Problem p = reducedForDp(loadWorkload("throughput-inputs/LayerGraphs/inceptionv3_training.json"));
  const std::string phases = "mla,random:40,brkga:24:6";
  const SolveResult one = solveSliceGraph(p, searchOptions(phases, 7, 1));
  ASSERT_EQ(one.status, SolveStatus::Feasible) << one.message;
  for (int threads : {1, 2, 3}) {
    const SolveResult r = solveSliceGraph(p, searchOptions(phases, 7, threads));
    EXPECT_EQ(r.value, one.value) << threads << " threads";
    EXPECT_EQ(r.placement.device_of, one.placement.device_of) << threads << " threads";
    EXPECT_EQ(r.stats.orders, one.stats.orders) << threads << " threads";
    EXPECT_EQ(r.message.substr(r.message.find("best from")),
              one.message.substr(one.message.find("best from")));
  }
  // BRKGA alone, from the DFS order: reproducible too, and a different seed takes another path.
  const SolveResult a = solveSliceGraph(p, searchOptions("brkga:20:8", 3, 2));
  const SolveResult b = solveSliceGraph(p, searchOptions("brkga:20:8", 3, 1));
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.placement.device_of, b.placement.device_of);
}

TEST(SliceGraph, KahnRecoversAnOrderFromItsPriorities) {
  std::mt19937 rng(5);
  const Problem p = randomContracted(rng, 40, /*training=*/true);
  const UnitGraph units = makeUnitGraph(p);
  KahnOrderer kahn(units);
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<int> order = unitOrder(units, randomForwardOrder(p, rng));
    ASSERT_EQ(static_cast<int>(order.size()), units.size());
    EXPECT_EQ(kahn.order(prioritiesOf(order)), order);
  }
  // Random priorities give topological orders (the slicer's checker accepts them).
  std::vector<double> priority(units.size());
  randomPriorities(1, 2, priority);
  std::vector<Vertex> vertices;
  for (int u : kahn.order(priority))
    vertices.push_back(units.vertices[u].front());
  EXPECT_TRUE(checkForwardOrder(p, vertices).isOk());
}

TEST(SliceGraph, OrderPhasesParseOrNameTheBadItem) {
  auto phases = parseOrderPhases("random:10,brkga:8:3,mla,mla-weighted:4:2");
  ASSERT_TRUE(phases.hasValue()) << phases.status().message();
  ASSERT_EQ(phases->size(), 4u);
  EXPECT_EQ((*phases)[0].count, 10);
  EXPECT_EQ((*phases)[1].population, 8);
  EXPECT_EQ((*phases)[1].generations, 3);
  EXPECT_EQ((*phases)[3].kind, OrderPhase::Kind::MlaWeighted);
  for (const char* bad : {"random", "random:0", "brkga:10", "genetic:3", "random:x", "random:5,", ""}) {
    auto r = parseOrderPhases(bad);
    EXPECT_FALSE(r.hasValue()) << bad;
    if (!r.hasValue()) {
      EXPECT_NE(r.status().message().find("--orders"), std::string::npos) << bad;
    }
  }
  EXPECT_TRUE(parseOrderPhases(kDefaultOrderPhases).hasValue());
}

SolveOptions autoRequest(double seconds, std::int64_t max_ideals = 4'000'000) {
  SolveOptions request;
  request.max_ideals = max_ideals;
  request.time_limit = seconds;
  request.budget = Budget(seconds, nullptr);
  request.orders = "mla,random:30,brkga:16:4";
  return request;
}

// auto answers with the DP's optimum wherever the DP finishes in (half) the budget.
TEST(Auto, ReturnsTheDpOptimumWhenTheDpFinishes) {
  for (const auto& [file, optimum] : kTable1) {
    if (std::string(file).find("inceptionv3") != std::string::npos) continue;  // seconds each: the slow tests
    const Problem p = reducedForDp(loadWorkload(std::string("throughput-inputs/") + file));
    const SolveResult r = solveAuto(p, autoRequest(60));
    EXPECT_EQ(r.status, SolveStatus::Optimal) << file << ": " << r.message;
    EXPECT_EQ(r.solver, "dp") << file;
    EXPECT_NEAR(r.value, optimum, 1e-6 * optimum) << file;
    EXPECT_TRUE(verify(p, r.placement).isOk()) << file;
  }
}

// A graph of 24 independent chains of two nodes has 3^24 ideals: auto cannot run the DP, and answers
// with a verified split within its budget anyway.
TEST(Auto, AnswersWithinTheBudgetWhenTheLatticeIsTooLarge) {
  GraphBuilder b({4, 1e9, 1});
  for (int i = 0; i < 24; ++i) {
    const int x = b.node(1 + i % 5, 3 + i % 7, 1e6), y = b.node(2 + i % 3, 4, 1e6);
    b.edge(x, y, 0.25);
  }
  const Problem p = b.build();
  const auto start = std::chrono::steady_clock::now();
  const SolveResult r = solveAuto(p, autoRequest(5));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, SolveStatus::Feasible) << r.message;
  EXPECT_TRUE(r.solver == "slicegraph" || r.solver == "dpl" || r.solver == "cluster-dp") << r.solver;
  // Refused at 4,000,000 ideals or at 512 MiB of them, or out of its budget before it got there
  // (sanitizers).
  EXPECT_TRUE(r.message.find("more than 4000000 ideals") != std::string::npos ||
              r.message.find("ideals over 512 MiB") != std::string::npos ||
              r.message.find("the exact DP did not finish") != std::string::npos)
      << r.message;
  EXPECT_TRUE(verify(p, r.placement).isOk()) << verify(p, r.placement).message();
  EXPECT_LT(seconds, 5 * 1.05 + 1);
  // Every device helps: the split is far better than one accelerator holding everything.
  const double total = evaluateThroughput(p, std::vector<int>(boost::num_vertices(p.graph), 0)).max_load;
  EXPECT_LT(r.value, total / 3);
}

}  // namespace slicegraph_search_test
}  // namespace placer::testing
