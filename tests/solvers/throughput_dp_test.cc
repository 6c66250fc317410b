// The exact DP reproduces every published optimum of Tarnawski et al. 2020, Table 1 (precise values
// from the published reference implementation), its placement evaluates to that value, and DPL
// stays within 10% above it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/evaluate.h"
#include "solvers/dp/throughput_dp.h"
#include "tests/solvers/random_contracted.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace throughput_dp_test {

struct Published {
  const char* workload;
  double optimum;
  double tolerance;     // relative; 1e-6 where the reference's full digits are published
  std::int64_t ideals;  // Table 1
};

void PrintTo(const Published& p, std::ostream* os) {
  *os << p.workload;
}

class PublishedOptimum : public ::testing::TestWithParam<Published> {};

TEST_P(PublishedOptimum, DpMatchesAndPlacementEvaluatesToIt) {
  const Published& expected = GetParam();
  auto outcome = runPipeline(loadWorkload(expected.workload), pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  const SolveResult& solve = outcome->solve;
  EXPECT_EQ(solve.status, SolveStatus::Optimal);
  EXPECT_NEAR(solve.value, expected.optimum, expected.tolerance * expected.optimum);
  EXPECT_EQ(solve.stats.ideals, expected.ideals);

  // The independent evaluator, on the original nodes, agrees with the DP's value.
  Evaluation eval = evaluateThroughput(outcome->problem, solve.placement.device_of);
  EXPECT_NEAR(eval.max_load, solve.value, 1e-9 * solve.value);
  Status verified = verify(outcome->problem, solve.placement);
  EXPECT_TRUE(verified.isOk()) << verified.message();
  EXPECT_TRUE(splitViolations(outcome->problem, solve.placement.device_of).empty());

  auto dpl = runPipeline(loadWorkload(expected.workload), pipelineFor("dpl"));
  ASSERT_TRUE(dpl.hasValue()) << dpl.status().message();
  EXPECT_EQ(dpl->solve.status, SolveStatus::Feasible);
  EXPECT_GE(dpl->solve.value, solve.value * (1 - 1e-9)) << "DPL beat the optimum";
  EXPECT_LE(dpl->solve.value, solve.value * 1.10) << "DPL more than 10% above the optimum";
  EXPECT_TRUE(verify(dpl->problem, dpl->solve.placement).isOk());
}

INSTANTIATE_TEST_SUITE_P(
    Table1, PublishedOptimum,
    ::testing::Values(
        Published{"throughput-inputs/LayerGraphs/bert24_inference.json", 17.78990625, 1e-6, 30},
        Published{"throughput-inputs/LayerGraphs/bert24_training.json", 41.7458125, 1e-6, 30},
        Published{"throughput-inputs/LayerGraphs/gnmt_inference.json", 32.9106582031, 1e-6, 17914},
        Published{"throughput-inputs/LayerGraphs/gnmt_training.json", 107.004414063, 1e-6, 17914},
        Published{"throughput-inputs/LayerGraphs/resnet50_inference.json", 33.774666015625, 1e-6, 242},
        Published{"throughput-inputs/LayerGraphs/resnet50_training.json", 78.6318125, 1e-6, 242},
        Published{"throughput-inputs/OperatorGraphs/bert_l-3_inference.json", 27.9185676799, 1e-6, 1428},
        Published{"throughput-inputs/OperatorGraphs/bert_l-6_inference.json", 29.5795058065, 1e-6, 1923},
        Published{"throughput-inputs/OperatorGraphs/bert_l-12_inference.json", 147.477984449, 1e-6, 2906},
        Published{"throughput-inputs/OperatorGraphs/resnet50_inference.json", 124.348849774, 1e-6, 241},
        Published{"throughput-inputs/OperatorGraphs/bert_l-3_training.json", 65.3031491221, 1e-6, 2774},
        Published{"throughput-inputs/OperatorGraphs/bert_l-6_training.json", 72.8649663224, 1e-6, 3776},
        Published{"throughput-inputs/OperatorGraphs/bert_L-12_training.json", 437.997637858, 1e-6, 2938},
        Published{"throughput-inputs/OperatorGraphs/resnet50_training.json", 255.194416452, 1e-6, 258}));

// The largest lattices (36,596 ideals): seconds here, minutes under the sanitizers, so instantiated
// apart and labelled slow (tests/CMakeLists.txt), which CI's sanitizer stage leaves out.
INSTANTIATE_TEST_SUITE_P(
    Table1Large, PublishedOptimum,
    ::testing::Values(
        Published{"throughput-inputs/LayerGraphs/inceptionv3_inference.json", 51.5518635864, 1e-6, 36596},
        // Only two decimals of this optimum are published.
        Published{"throughput-inputs/LayerGraphs/inceptionv3_training.json", 122.76, 1e-4, 36596}));

// Pruning by the DPL bound must not change the optimum: without any bound the DP finds the same value.
TEST(ThroughputDp, UpperBoundPruningKeepsTheOptimum) {
  for (const char* workload : {"throughput-inputs/OperatorGraphs/bert_l-3_inference.json",
                               "throughput-inputs/LayerGraphs/resnet50_training.json"}) {
    auto contracted = runPipeline(loadWorkload(workload), pipelineFor("dp"));
    ASSERT_TRUE(contracted.hasValue());
    const Problem problem = reducedForDp(loadWorkload(workload));
    DpOptions unbounded;
    SolveResult plain = solveThroughputDp(problem, unbounded);
    ASSERT_EQ(plain.status, SolveStatus::Optimal);
    EXPECT_NEAR(plain.value, contracted->solve.value, 1e-9 * plain.value) << workload;
    DpOptions bounded;
    bounded.upper_bound = plain.value;
    SolveResult pruned = solveThroughputDp(problem, bounded);
    EXPECT_EQ(pruned.value, plain.value);
    EXPECT_LT(pruned.stats.ideal_pairs, plain.stats.ideal_pairs);
    EXPECT_GT(pruned.stats.pruned, 0);
  }
}

// The tightest valid bound (the optimum itself) prunes most: blocks above it, and the entries whose
// ideal or whose rest cannot fit the devices at that load (LiveRows). The optimum must survive, bit
// for bit, with CPUs, unsupported nodes, memory, shared weights, training partners and every overlap
// mode, on devices from one accelerator and no CPU to four accelerators and three CPUs.
TEST(ThroughputDp, PruningAtTheOptimumKeepsItExactly) {
  int skipped_rows = 0;
  for (unsigned seed = 1; seed <= 150; ++seed) {
    std::mt19937 rng(seed);
    const DeviceSet devices{1 + static_cast<int>(seed % 4), 40.0 + 30.0 * (seed % 3),
                            static_cast<int>(seed % 4)};
    const Problem p = randomContracted(rng, 6 + static_cast<int>(seed % 9), seed % 3 == 0, devices);
    const SolveResult plain = solveThroughputDp(p, DpOptions{});
    if (plain.status == SolveStatus::Infeasible) continue;
    ASSERT_EQ(plain.status, SolveStatus::Optimal) << "seed " << seed << ": " << plain.message;
    DpOptions at_optimum;
    at_optimum.upper_bound = plain.value;
    const SolveResult pruned = solveThroughputDp(p, at_optimum);
    ASSERT_EQ(pruned.status, SolveStatus::Optimal) << "seed " << seed << ": " << pruned.message;
    EXPECT_EQ(pruned.value, plain.value) << "seed " << seed;
    EXPECT_TRUE(verify(p, pruned.placement).isOk()) << "seed " << seed;
    skipped_rows += pruned.stats.ideal_pairs < plain.stats.ideal_pairs;
  }
  EXPECT_GT(skipped_rows, 50) << "the bound should prune on most instances";
}

// A bound below the optimum (not what the DP is promised, but what a caller could pass) prunes away
// every optimal split: the DP must say that nothing is at or below the bound, and never call the best
// of what pruning left optimal.
TEST(ThroughputDp, ABoundBelowTheOptimumIsInfeasibleNotAWorseOptimum) {
  int instances = 0;
  for (unsigned seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed);
    const DeviceSet devices{1 + static_cast<int>(seed % 4), 40.0 + 30.0 * (seed % 3),
                            static_cast<int>(seed % 3)};
    const Problem p = randomContracted(rng, 6 + static_cast<int>(seed % 9), seed % 3 == 0, devices);
    const SolveResult plain = solveThroughputDp(p, DpOptions{});
    if (plain.status != SolveStatus::Optimal || !(plain.value > 0)) continue;
    ++instances;
    for (double below : {0.999, 0.95, 0.8}) {
      DpOptions bounded;
      bounded.upper_bound = plain.value * below;
      const SolveResult pruned = solveThroughputDp(p, bounded);
      EXPECT_EQ(pruned.status, SolveStatus::Infeasible)
          << "seed " << seed << ", bound " << below << " x the "
          << "optimum: " << pruned.message << " " << pruned.value;
      EXPECT_NE(pruned.message.find("at most"), std::string::npos) << pruned.message;
    }
  }
  EXPECT_GE(instances, 30);
}

// A CPU core holds one convex block. On a chain of layers, each a heavy operator (slow on a CPU)
// and two small ones (better on a CPU), the knapsack would let the core take every small operator
// of the graph (48 of the 288 units of accelerator work); a block can hold one layer's two (2 units),
// as any larger block contains a heavy operator. Bounded by that, a CPU core widens the rows that
// stay live by little: the DP at the optimum walks barely more pairs than on the accelerators alone,
// and finds the unpruned optimum bit for bit.
TEST(ThroughputDp, ACpuCoreTakesOneBlockNotTheBestUnitsOfTheGraph) {
  std::int64_t pairs[2] = {0, 0};
  for (int cpus : {0, 1}) {
    const Problem p = heavyAndSmallLayers(DeviceSet{4, 1e18, cpus});
    const SolveResult plain = solveThroughputDp(p, DpOptions{});
    ASSERT_EQ(plain.status, SolveStatus::Optimal) << plain.message;
    DpOptions at_optimum;
    at_optimum.upper_bound = plain.value;
    const SolveResult pruned = solveThroughputDp(p, at_optimum);
    ASSERT_EQ(pruned.status, SolveStatus::Optimal) << pruned.message;
    EXPECT_EQ(pruned.value, plain.value) << cpus << " CPU cores";
    EXPECT_TRUE(verify(p, pruned.placement).isOk());
    pairs[cpus] = pruned.stats.ideal_pairs;
  }
  EXPECT_LT(pairs[1], pairs[0] * 3 / 2) << pairs[1] << " pairs with a CPU core, " << pairs[0] << " without";
}

// auto's checkpoint for a lattice too slow to generate: past lattice_seconds the DP stops, and says
// where, instead of counting on to the deadline.
TEST(ThroughputDp, StopsAtItsCheckpointWhileGeneratingIdeals) {
  const Problem problem = reducedForDp(loadWorkload("throughput-inputs/LayerGraphs/gnmt_inference.json"));
  DpOptions options;
  options.lattice_seconds = 0;
  const SolveResult stopped = solveThroughputDp(problem, options);
  EXPECT_EQ(stopped.status, SolveStatus::TimeLimit);
  EXPECT_EQ(stopped.message, "stopped at its checkpoint while generating ideals");
  options.lattice_seconds = 600;  // ample: the 17,914 ideals and the optimum
  const SolveResult solved = solveThroughputDp(problem, options);
  EXPECT_EQ(solved.status, SolveStatus::Optimal);
  EXPECT_EQ(solved.stats.ideals, 17914);
}

TEST(ThroughputDp, TooManyIdealsIsReportedNotAttempted) {
  PassOptions ctx;
  ctx.solver.max_ideals = 1000;
  auto outcome =
      runPipeline(loadWorkload("throughput-inputs/LayerGraphs/gnmt_inference.json"), pipelineFor("dp"), ctx);
  ASSERT_FALSE(outcome.hasValue());
  EXPECT_EQ(outcome.status().code(), StatusCode::ResourceLimit);
  EXPECT_NE(outcome.status().message().find("more than 1000 ideals"), std::string::npos);
  EXPECT_NE(outcome.status().message().find("dpl"), std::string::npos);
}

TEST(ThroughputDp, OverlapModesNeverRaiseTheOptimum) {
  // max(compute, comm) and max(in, compute, out) are at most in + compute + out for every device.
  double previous = kInfinity;
  for (Overlap mode : {Overlap::None, Overlap::Max, Overlap::Duplex}) {
    Problem problem = loadWorkload("throughput-inputs/OperatorGraphs/bert_l-3_inference.json");
    problem.objective.overlap = mode;
    auto outcome = runPipeline(std::move(problem), pipelineFor("dp"));
    ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
    EXPECT_LE(outcome->solve.value, previous * (1 + 1e-12));
    EXPECT_TRUE(verify(outcome->problem, outcome->solve.placement).isOk());
    previous = outcome->solve.value;
  }
}

}  // namespace throughput_dp_test
}  // namespace placer::testing
