// auto's budget (issue 31): the exact DP's checkpoint as a pure function, the DP going on past half the
// budget when its estimate fits, the early stop at --target-ratio; and cluster-dp (clustering + DP +
// refinement) as a solver: valid splits, never below the exact DP's optimum, never claimed optimal.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "core/evaluate.h"
#include "passes/pass_manager.h"
#include "solvers/auto_solver.h"
#include "solvers/cluster_dp.h"
#include "solvers/dp/throughput_dp.h"
#include "tests/solvers/random_contracted.h"
#include "tests/test_util.h"

namespace placer {
namespace auto_test {

using testing::loadWorkload;
using testing::reducedForDp;

TEST(ContinueExactDp, AlwaysBeforeTheCheckpoint) {
  EXPECT_TRUE(continueExactDp(0, 0, 1000, 10, 5));
  EXPECT_TRUE(continueExactDp(4.9, 1, 1'000'000, 0.1, 5));  // however bad the estimate
}

TEST(ContinueExactDp, AfterItWhileTheEstimateFits) {
  // 6 s for 600 of 1000 rows: 4 s more, and 4.5 s are left.
  EXPECT_TRUE(continueExactDp(6, 600, 1000, 4.5, 5));
  // The same with 3.5 s left: it stops.
  EXPECT_FALSE(continueExactDp(6, 600, 1000, 3.5, 5));
  // Exactly what is left: it goes on.
  EXPECT_TRUE(continueExactDp(6, 600, 1000, 4.0, 5));
  // Done: nothing more to estimate.
  EXPECT_TRUE(continueExactDp(8, 1000, 1000, 0, 5));
  // Past the checkpoint without a row filled: no estimate, it stops.
  EXPECT_FALSE(continueExactDp(5.5, 0, 1000, 100, 5));
}

// The exact DP of layer GNMT inference (17,914 ideals) driven by auto's checkpoint on a virtual clock
// (a millisecond per row of the table, so the test does not depend on the machine): with a budget of
// 1.5 times what the table takes, the checkpoint (half the budget) comes at 75% of the rows, the
// estimate fits, and the DP goes on past it to the optimum; with 0.8 times, it stops at its
// checkpoint.
TEST(Auto, TheDpGoesOnPastHalfTheBudgetWhenItsEstimateFits) {
  const Problem p = reducedForDp(loadWorkload("throughput-inputs/LayerGraphs/gnmt_inference.json"));
  const SolveResult dpl = solveDplUnbounded(p, 1, Limits{});
  ASSERT_EQ(dpl.status, SolveStatus::Feasible);
  for (const double share : {1.5, 0.8}) {
    SCOPED_TRACE(share);
    DpOptions options;
    options.threads = 1;
    options.upper_bound = dpl.value;
    double budget = 0;  // virtual seconds, set from the table's size at the first row
    bool past_checkpoint = false;
    options.keep_going = [&](std::int64_t done, std::int64_t total) {
      if (budget == 0) budget = share * static_cast<double>(total) * 1e-3;
      const double elapsed = static_cast<double>(done) * 1e-3;
      const bool go_on = continueExactDp(elapsed, done, total, budget - elapsed, budget / 2);
      past_checkpoint = past_checkpoint || (go_on && elapsed >= budget / 2);
      return go_on;
    };
    const SolveResult r = solveThroughputDp(p, options);
    if (share > 1) {
      ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
      EXPECT_NEAR(r.value, 32.9106582031, 1e-6);
      EXPECT_TRUE(past_checkpoint);
    } else {
      EXPECT_EQ(r.status, SolveStatus::TimeLimit) << r.message;
      EXPECT_NE(r.message.find("checkpoint"), std::string::npos) << r.message;
      EXPECT_FALSE(past_checkpoint);
    }
  }
}

// With a target ratio the lower bound already meets, auto answers before the exact DP.
TEST(Auto, StopsOnceTheTargetRatioIsMet) {
  const Problem p = reducedForDp(loadWorkload("throughput-inputs/OperatorGraphs/resnet50_inference.json"));
  SolveOptions request;
  request.time_limit = 30;
  request.budget = Budget(30, nullptr);
  request.target_ratio = 3.0;
  const SolveResult r = solveAuto(p, request);
  ASSERT_TRUE(r.status == SolveStatus::Feasible || r.status == SolveStatus::Optimal) << r.message;
  EXPECT_EQ(r.solver, "dpl") << r.message;
  EXPECT_EQ(r.message.find("dp:"), std::string::npos) << r.message;
  EXPECT_LE(r.value, 3.0 * r.bound * (1 + 1e-9));
  EXPECT_GT(r.bound, 0);
  EXPECT_TRUE(verify(p, r.placement).isOk());
  // With the default ratio (1) it runs the DP, which proves the optimum.
  request.target_ratio = 1.0;
  const SolveResult exact = solveAuto(p, request);
  EXPECT_EQ(exact.status, SolveStatus::Optimal);
  EXPECT_NEAR(exact.value, 124.348849774, 1e-6);
}

// cluster-dp: a verified contiguous split, never below the exact DP's optimum, Feasible (no proof), and
// with a fine enough clustering the optimum itself on small graphs.
TEST(ClusterDp, ValidSplitsNeverBelowTheExactOptimum) {
  std::mt19937 rng(21);
  int equal = 0;
  double worst = 1;
  for (int trial = 0; trial < 20; ++trial) {
    const bool training = trial % 2 == 1;
    const Problem p = testing::randomContracted(rng, 14 + trial % 8, training, DeviceSet(3, 150, 1));
    DpOptions exact;
    const SolveResult dp = solveThroughputDp(p, exact);
    ASSERT_EQ(dp.status, SolveStatus::Optimal);
    SolveOptions request;
    request.cluster_target = 8 + trial % 3 * 4;
    const SolveResult r = solveClusterDp(p, request);
    ASSERT_EQ(r.status, SolveStatus::Feasible) << r.message;
    EXPECT_EQ(r.bound, 0);
    EXPECT_TRUE(verify(p, r.placement).isOk()) << verify(p, r.placement).message();
    EXPECT_DOUBLE_EQ(r.value, evaluateThroughput(p, r.placement.device_of).max_load);
    EXPECT_GE(r.value, dp.value * (1 - 1e-9)) << "trial " << trial;
    equal += r.value <= dp.value * (1 + 1e-9);
    worst = std::max(worst, r.value / dp.value);
  }
  // Half the clusters of the units or fewer: the refinement recovers the optimum on about half of
  // the graphs (10 of 20 when written), and is never far off.
  EXPECT_GE(equal, 8);
  EXPECT_LE(worst, 1.35);
}

// Through the pipeline: the cluster-dp answer on a Table 1 workload is verified on the original nodes
// and gets the certify pass's certificate (its reductions are exact; the clustering is internal).
TEST(ClusterDp, AnswersTable1WorkloadsWithinAFewPercent) {
  for (const auto& [file, optimum] : std::vector<std::pair<const char*, double>>{
           {"LayerGraphs/resnet50_training.json", 78.6318125},
           {"OperatorGraphs/bert_l-6_training.json", 72.8649663224},
           {"OperatorGraphs/bert_l-12_inference.json", 147.477984449}}) {
    const Problem p = loadWorkload(std::string("throughput-inputs/") + file);
    PassOptions options;
    options.solver.time_limit = 20;
    auto outcome = runPipeline(p, defaultPipeline("cluster-dp"), options);
    ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
    const SolveResult& r = outcome->solve;
    EXPECT_EQ(r.solver, "cluster-dp");
    EXPECT_TRUE(verify(p, r.placement).isOk()) << file;
    EXPECT_GE(r.value, optimum * (1 - 1e-6)) << file;
    EXPECT_LE(r.value, optimum * 1.03) << file;
    EXPECT_GT(r.certificate.lower, 0) << file;
    EXPECT_LE(r.certificate.lower, optimum * (1 + 1e-6)) << file;
  }
}

// A pipeline with the lossy cluster pass never claims the optimum: the DP's optimum on clusters is an
// upper bound of the operators'.
TEST(ClusterPass, ALossyPipelineReportsAFeasibleSplitWithoutABound) {
  const Problem p = loadWorkload("throughput-inputs/OperatorGraphs/bert_l-3_inference.json");
  auto outcome =
      runPipeline(p, "subdivide,colocate,orphans,scc,fold-leaves,cluster=40,partition=dp,certify,expand");
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_TRUE(outcome->lossy);
  EXPECT_EQ(outcome->solve.status, SolveStatus::Feasible);
  EXPECT_EQ(outcome->solve.bound, 0);
  EXPECT_NE(outcome->solve.message.find("solved on clusters"), std::string::npos);
  EXPECT_GE(outcome->solve.value, 27.9185676799 * (1 - 1e-9));
}

}  // namespace auto_test
}  // namespace placer
