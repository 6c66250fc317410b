// The exact DP fills ideals of equal size on several threads; the answer must not depend on how
// many: on every Table 1 workload, one thread and three (more than this machine's cores, so threads
// interleave) give the same optimum bit for bit, the same placement and the same counts of ideal
// pairs and pruned subtrees.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/test_util.h"

namespace placer::testing {
namespace dp_threads_test {

class ParallelDp : public ::testing::TestWithParam<const char*> {};

SolveResult solveWithThreads(const std::string& workload, int threads) {
  PassOptions ctx;
  ctx.solver.threads = threads;
  auto outcome = runPipeline(loadWorkload(workload), pipelineFor("dp"), ctx);
  EXPECT_TRUE(outcome.hasValue()) << outcome.status().message();
  if (!outcome) return {};
  return outcome->solve;
}

TEST_P(ParallelDp, EqualsTheSequentialDpBitForBit) {
  const SolveResult one = solveWithThreads(GetParam(), 1);
  ASSERT_EQ(one.status, SolveStatus::Optimal) << one.message;
  for (int threads : {2, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const SolveResult many = solveWithThreads(GetParam(), threads);
    ASSERT_EQ(many.status, SolveStatus::Optimal) << many.message;
    EXPECT_EQ(std::memcmp(&one.value, &many.value, sizeof(double)), 0)
        << one.value << " vs " << many.value << ": not the same bits";
    EXPECT_EQ(one.placement.device_of, many.placement.device_of);
    EXPECT_EQ(one.placement.stage_of, many.placement.stage_of);
    EXPECT_EQ(one.stats.ideals, many.stats.ideals);
    EXPECT_EQ(one.stats.ideal_pairs, many.stats.ideal_pairs);
    EXPECT_EQ(one.stats.pruned, many.stats.pruned);
  }
}

INSTANTIATE_TEST_SUITE_P(Table1, ParallelDp,
                         ::testing::Values("throughput-inputs/LayerGraphs/bert24_inference.json",
                                           "throughput-inputs/LayerGraphs/bert24_training.json",
                                           "throughput-inputs/LayerGraphs/gnmt_inference.json",
                                           "throughput-inputs/LayerGraphs/gnmt_training.json",
                                           "throughput-inputs/LayerGraphs/resnet50_inference.json",
                                           "throughput-inputs/LayerGraphs/resnet50_training.json",
                                           "throughput-inputs/OperatorGraphs/bert_l-3_inference.json",
                                           "throughput-inputs/OperatorGraphs/bert_l-6_inference.json",
                                           "throughput-inputs/OperatorGraphs/bert_l-12_inference.json",
                                           "throughput-inputs/OperatorGraphs/resnet50_inference.json",
                                           "throughput-inputs/OperatorGraphs/bert_l-3_training.json",
                                           "throughput-inputs/OperatorGraphs/bert_l-6_training.json",
                                           "throughput-inputs/OperatorGraphs/bert_L-12_training.json",
                                           "throughput-inputs/OperatorGraphs/resnet50_training.json"));

// The two largest lattices (36,596 ideals): seconds each here, minutes under the sanitizers, so
// labelled slow (tests/CMakeLists.txt).
INSTANTIATE_TEST_SUITE_P(Table1Large, ParallelDp,
                         ::testing::Values("throughput-inputs/LayerGraphs/inceptionv3_inference.json",
                                           "throughput-inputs/LayerGraphs/inceptionv3_training.json"));

// A time limit stops the parallel fill too, and the pipeline answers with DPL's split, saying so.
TEST(ParallelDpBudget, ATimeLimitStopsEveryThread) {
  PassOptions ctx;
  ctx.solver.threads = 3;
  ctx.solver.budget = Budget(0.2, nullptr);
  auto outcome = runPipeline(loadWorkload("throughput-inputs/LayerGraphs/inceptionv3_training.json"),
                             pipelineFor("dp"), ctx);
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_EQ(outcome->solve.status, SolveStatus::TimeLimit) << outcome->solve.message;
  EXPECT_TRUE(verify(outcome->problem, outcome->solve.placement).isOk());
}

}  // namespace dp_threads_test
}  // namespace placer::testing
