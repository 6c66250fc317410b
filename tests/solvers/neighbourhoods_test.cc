// The regions placed exactly by small programs (solvers/refine/neighbourhoods.h): the split returned
// is never worse and stays valid (memory, support, colocation) on random graphs with every overlap
// mode, CPU boundary costs and shared weights; on tiny graphs, where a region can hold every unit,
// the search reaches the exhaustive non-contiguous optimum and never goes below it (so the program's
// loads are the evaluator's); on op BERT-6 inference it goes well below where the refinement's own
// moves stop.
#include <gtest/gtest.h>

#include <random>

#include "core/evaluate.h"
#include "passes/pass_manager.h"
#include "solvers/refine/neighbourhoods.h"
#include "solvers/refine/refine.h"
#include "tests/solvers/exhaustive_split.h"
#include "tests/solvers/random_contracted.h"
#include "tests/test_util.h"

namespace placer {
namespace neighbourhoods_test {

using testing::exhaustiveOptimum;
using testing::loadWorkload;
using testing::pipelineFor;
using testing::randomContracted;
using testing::throughputValid;

double maxLoad(const Problem& p, const std::vector<int>& device_of) {
  return evaluateThroughput(p, device_of).max_load;
}

// A valid non-contiguous split to start from: the units spread round robin over the devices that run
// them, refined so that memory holds (the refinement only keeps valid splits, and starts from one on
// a CPU core, which has no memory limit).
std::vector<int> startingSplit(const Problem& p) {
  RefineOptions refine;
  refine.contiguous = false;
  refine.kicks = 0;
  return refineSplit(p, std::vector<int>(boost::num_vertices(p.graph), p.devices.accelerators), refine)
      .device_of;
}

TEST(Neighbourhoods, NeverWorseAndValidOnRandomGraphs) {
  std::mt19937 rng(5);
  int improved = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const bool training = trial % 3 == 2;
    Problem p = randomContracted(rng, 12 + trial % 13, training, DeviceSet(2 + trial % 3, 90, 1 + trial % 2));
    p.objective.overlap = static_cast<Overlap>(trial % 3);
    const std::vector<int> start = startingSplit(p);
    ASSERT_TRUE(throughputValid(p, start, false)) << "trial " << trial;
    NeighbourhoodOptions options;
    options.seed = static_cast<std::uint64_t>(trial) + 1;
    options.free_units = 6;
    options.program_seconds = 0.05;
    options.patience = 10;
    NeighbourhoodStats stats;
    const std::vector<int> result = improveByNeighbourhoods(p, start, options, &stats);
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_TRUE(throughputValid(p, result, false));
    EXPECT_LE(maxLoad(p, result), maxLoad(p, start) * (1 + 1e-12));
    EXPECT_DOUBLE_EQ(stats.before, maxLoad(p, start));
    EXPECT_DOUBLE_EQ(stats.after, maxLoad(p, result));
    EXPECT_GT(stats.programs, 0);
    improved += maxLoad(p, result) < maxLoad(p, start) * (1 - 1e-9);
  }
  // The refinement's own moves stopped at every start: the programs still find better splits.
  EXPECT_GT(improved, 0);
}

// Tiny graphs: a region may hold every unit, and then its program is the whole non-contiguous
// program. The search must end at the exhaustive optimum and never below it.
TEST(Neighbourhoods, ReachTheExhaustiveOptimumOnTinyGraphs) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 20; ++trial) {
    const bool training = trial % 4 == 3;
    const int n = training ? 4 : 5 + trial % 3;
    Problem p = randomContracted(rng, n, training, DeviceSet(2, 70, 1));
    p.objective.overlap = static_cast<Overlap>(trial % 3);
    const std::vector<int> start = startingSplit(p);
    NeighbourhoodOptions options;
    options.seed = static_cast<std::uint64_t>(trial) + 7;
    options.free_units = 64;
    options.program_seconds = 5;
    options.patience = 12;
    const std::vector<int> result = improveByNeighbourhoods(p, start, options);
    const double optimum =
        exhaustiveOptimum(p, [&](const std::vector<int>& split) { return throughputValid(p, split, false); });
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_TRUE(throughputValid(p, result, false));
    EXPECT_NEAR(maxLoad(p, result), optimum, 1e-9 * optimum);
  }
}

TEST(Neighbourhoods, GpipeAndAnExhaustedBudgetReturnTheSplitGiven) {
  std::mt19937 rng(3);
  Problem p = randomContracted(rng, 10, true, DeviceSet(3, 90, 1));
  const std::vector<int> start = startingSplit(p);
  NeighbourhoodOptions spent;
  spent.budget = Budget(0, nullptr);
  NeighbourhoodStats stats;
  EXPECT_EQ(improveByNeighbourhoods(p, start, spent, &stats), start);
  EXPECT_EQ(stats.programs, 0);
  p.objective.gpipe = true;
  EXPECT_EQ(improveByNeighbourhoods(p, start, NeighbourhoodOptions{}), start);
}

// Op BERT-6 inference (418 operators, three accelerators and a CPU core): the DP's split refined
// non-contiguously is 29.3827, where every move, swap and kick of the refinement is worse; placing
// regions of it exactly takes it below 29 (the bench, where ip-noncontig spends 60% of a minute on
// it, reaches the paper's 28.33).
TEST(Neighbourhoods, OpBert6InferenceGoesWhereTheRefinementStops) {
  const Problem p = loadWorkload("throughput-inputs/OperatorGraphs/bert_l-6_inference.json");
  auto dp = runPipeline(p, pipelineFor("dp"));
  ASSERT_TRUE(dp.hasValue()) << dp.status().message();
  RefineOptions refine;
  refine.contiguous = false;
  // Kicks of up to 8 units leave the refinement at 29.38 here (the default's 32 reach 28.74 alone):
  // the regions must then go below 29 by themselves.
  refine.kick_units = 8;
  const Refined refined = refineSplit(p, dp->solve.placement.device_of, refine);
  ASSERT_GT(refined.value, 29.0);
  NeighbourhoodOptions options;
  options.patience = 30;
  options.budget = Budget(20, nullptr);
  NeighbourhoodStats stats;
  const std::vector<int> result = improveByNeighbourhoods(p, refined.device_of, options, &stats);
  EXPECT_TRUE(throughputValid(p, result, false));
  EXPECT_LT(maxLoad(p, result), 29.0) << "refined " << refined.value << ", " << stats.programs << " programs";
}

}  // namespace neighbourhoods_test
}  // namespace placer
