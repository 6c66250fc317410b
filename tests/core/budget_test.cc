// Budgets: a set stop flag makes every solver report Interrupted (never a split to be used), an
// exhausted deadline makes the DP report TimeLimit, and the partition pass answers an exhausted
// deadline with DPL's split rather than nothing.
#include "core/budget.h"

#include <gtest/gtest.h>

#include <atomic>

#include "core/evaluate.h"
#include "passes/pass_manager.h"
#include "solvers/dp/throughput_dp.h"
#include "solvers/latency_ip.h"
#include "solvers/maxload_ip.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace budget_test {

// A workload after the passes a solver expects before it.
Problem prepared(const std::string& workload, const std::string& passes, Goal goal = Goal::Throughput) {
  Problem problem = loadWorkload(workload);
  problem.objective.goal = goal;
  PassRegistry registry;
  registerBuiltinPasses(registry);
  PassManager manager;
  PassOptions ctx;
  EXPECT_TRUE(manager.parsePipeline(registry, passes).isOk());
  EXPECT_TRUE(manager.run(problem, ctx).isOk());
  return problem;
}

TEST(Budget, RemainingAndWithin) {
  std::atomic<bool> stop{false};
  const Budget none = Budget::unlimited(&stop);
  EXPECT_FALSE(none.hasDeadline());
  EXPECT_FALSE(none.exhausted());
  EXPECT_EQ(none.remaining(), kInfinity);
  const Budget ten(10, &stop);
  EXPECT_TRUE(ten.hasDeadline());
  EXPECT_LE(ten.remaining(), 10.0);
  EXPECT_GT(ten.remaining(), 9.0);
  EXPECT_LE(ten.within(1).remaining(), 1.0);
  EXPECT_GT(ten.within(100).remaining(), 9.0) << "never later than the outer deadline";
  EXPECT_TRUE(Budget(0, nullptr).exhausted());
  stop = true;
  EXPECT_TRUE(none.interrupted());
  EXPECT_TRUE(ten.within(5).exhausted()) << "copies share the flag";
}

TEST(Budget, TheDpReportsInterruptedAndTimeLimit) {
  const Problem p =
      prepared("throughput-inputs/LayerGraphs/gnmt_inference.json", "subdivide,colocate,orphans,scc");
  std::atomic<bool> stop{true};
  DpOptions options;
  options.limits.budget = Budget::unlimited(&stop);
  EXPECT_EQ(solveThroughputDp(p, options).status, SolveStatus::Interrupted);
  options.limits.budget = Budget(0, nullptr);
  const SolveResult out_of_time = solveThroughputDp(p, options);
  EXPECT_EQ(out_of_time.status, SolveStatus::TimeLimit);
  EXPECT_NE(out_of_time.message.find("time limit"), std::string::npos) << out_of_time.message;
}

TEST(Budget, TheIntegerProgramsReportInterrupted) {
  std::atomic<bool> stop{true};
  const Problem throughput =
      prepared("throughput-inputs/LayerGraphs/bert24_inference.json", "subdivide,colocate");
  MaxLoadIpOptions maxload;
  maxload.contiguous = false;
  maxload.limits.budget = Budget::unlimited(&stop);
  EXPECT_EQ(solveMaxLoadIp(throughput, maxload).status, SolveStatus::Interrupted);
  const Problem latency =
      prepared("latency-inputs/LayerGraphs/bert24_inference.json", "subdivide", Goal::Latency);
  LatencyIpOptions options;
  options.limits.budget = Budget::unlimited(&stop);
  EXPECT_EQ(solveLatencyIp(latency, options).status, SolveStatus::Interrupted)
      << "even with the start the heuristics found";
}

TEST(Budget, AnExhaustedDeadlineStillGetsDplsSplit) {
  const Problem p = loadWorkload("throughput-inputs/LayerGraphs/gnmt_inference.json");
  PassOptions ctx;
  ctx.solver.budget = Budget(0, nullptr);
  auto outcome = runPipeline(p, defaultPipeline("dp"), ctx);
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_EQ(outcome->solve.status, SolveStatus::TimeLimit) << "a split, stopped by the deadline";
  EXPECT_NE(outcome->solve.message.find("DPL's split"), std::string::npos) << outcome->solve.message;
  EXPECT_NEAR(outcome->solve.value, 33.0325547, 1e-6) << "DPL's value on layer GNMT inference";
  EXPECT_TRUE(verify(outcome->problem, outcome->solve.placement).isOk());
}

}  // namespace budget_test
}  // namespace placer::testing
