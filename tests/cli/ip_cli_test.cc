// The CLI's latency objective and integer-program algorithms, end to end through the real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "solvers/mip.h"
#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace ip_cli_test {

const std::string kBert24Latency = "latency-inputs/LayerGraphs/bert24_inference.json";
const std::string kBert24Throughput = "throughput-inputs/LayerGraphs/bert24_inference.json";

// Key order matters (totalLatency first), so parse into an ordered object.
nlohmann::ordered_json parse(const std::string& text) {
  return nlohmann::ordered_json::parse(text);
}

TEST_F(CliTest, LatencyGreedyPrintsTotalLatencyAndEvaluatesToIt) {
  const std::string workload = workloadPath(kBert24Latency).string();
  const std::string out = (work_ / "greedy.json").string();
  RunResult r = run({"partition", workload, "--objective", "latency", "--algorithm", "greedy", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::ordered_json j = parse(slurp(out));
  ASSERT_TRUE(j.contains("totalLatency"));
  EXPECT_EQ(j.begin().key(), "totalLatency");  // first, as the reference greedy prints it
  EXPECT_NEAR(j["totalLatency"].get<double>(), 100.2185, 1e-6 * 100.2185);  // Table 4, greedy
  EXPECT_EQ(j["status"], "feasible");
  EXPECT_EQ(j["bound"].get<double>(), 0.0);
  EXPECT_EQ(j["solver"]["algorithm"], "greedy");
  ASSERT_EQ(j["fpgas"].size(), 5u);
  EXPECT_TRUE(j["fpgas"][0].contains("subgraphs"));

  RunResult e = run({"evaluate", workload, "--split", out, "--objective", "latency"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  nlohmann::ordered_json ej = parse(e.out);
  EXPECT_NEAR(ej["totalLatency"].get<double>(), j["totalLatency"].get<double>(), 1e-9);
  EXPECT_TRUE(ej["valid"].get<bool>());
}

TEST_F(CliTest, LatencyOfTheMaxLoadDpSplitIsTable4sBaseline) {
  RunResult r = run({"partition", workloadPath(kBert24Latency).string(), "--objective", "latency",
                     "--algorithm", "dp", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(parse(r.out)["totalLatency"].get<double>(), 108.03, 0.005);  // Table 4, max-load DP
}

TEST_F(CliTest, TimeLimitedIpReportsIncumbentBoundAndGap) {
  // With no time to search, the contiguous IP returns its start (the DP's split) with the bound.
  RunResult r = run({"partition", workloadPath(kBert24Throughput).string(), "--algorithm", "ip",
                     "--time-limit", "0", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::ordered_json j = parse(r.out);
  EXPECT_NEAR(j["maxLoad"].get<double>(), 17.78990625, 1e-9);
  EXPECT_EQ(j["status"], "feasible");
  EXPECT_GT(j["bound"].get<double>(), 0.0);
  EXPECT_LT(j["bound"].get<double>(), j["maxLoad"].get<double>());
  EXPECT_NEAR(j["gap"].get<double>(),
              (j["maxLoad"].get<double>() - j["bound"].get<double>()) / j["maxLoad"].get<double>(), 1e-12);
}

TEST_F(CliTest, NonContiguousIpBeatsTheContiguousOptimum) {
  RunResult r = run({"partition", workloadPath(kBert24Throughput).string(), "--algorithm", "ip-noncontig",
                     "--time-limit", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::ordered_json j = parse(r.out);
  EXPECT_LT(j["maxLoad"].get<double>(), 17.78990625 - 1e-6);
  EXPECT_NE(r.err.find("ip-noncontig, feasible, its own bound"), std::string::npos) << r.err;
  // The certificate covers every placement, and the program's bound is part of it.
  EXPECT_EQ(j["boundSpace"], "any");
  EXPECT_GE(j["lowerBound"].get<double>(), j["bound"].get<double>());
  EXPECT_LE(j["lowerBound"].get<double>(), j["maxLoad"].get<double>());
  EXPECT_NEAR(j["ratio"].get<double>(), j["upperBound"].get<double>() / j["lowerBound"].get<double>(), 1e-12);
  EXPECT_NE(r.err.find("certified within"), std::string::npos) << r.err;
}

TEST_F(CliTest, ContiguousIpEqualsDpOnTheCommandLine) {
  RunResult r = run({"partition", workloadPath(kBert24Throughput).string(), "--algorithm", "ip", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::ordered_json j = parse(r.out);
  EXPECT_NEAR(j["maxLoad"].get<double>(), 17.78990625, 1e-9);
  EXPECT_EQ(j["status"], "optimal");
  EXPECT_EQ(j["gap"].get<double>(), 0.0);
}

TEST_F(CliTest, MipSolverCbcRunsTheIntegerProgramsAndIsNamed) {
  const std::string throughput = workloadPath(kBert24Throughput).string();
  RunResult probe = run({"partition", throughput, "--algorithm", "ip", "--mip-solver", "cbc", "-q"});
  if (!mip::backendAvailable(mip::Backend::Cbc)) {
    EXPECT_EQ(probe.exit_code, 2) << probe.err;
    EXPECT_NE(probe.err.find("--mip-solver cbc"), std::string::npos) << probe.err;
    EXPECT_NE(probe.err.find("coinor-libcbc-dev"), std::string::npos) << probe.err;
    GTEST_SKIP() << "this build has no CBC";
  }
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  nlohmann::ordered_json j = parse(probe.out);
  EXPECT_NEAR(j["maxLoad"].get<double>(), 17.78990625, 1e-9);  // the DP optimum, proven
  EXPECT_EQ(j["status"], "optimal");
  EXPECT_EQ(j["solver"]["mipSolver"], "cbc");
  // The default is GLPK, and says so.
  RunResult glpk = run({"partition", throughput, "--algorithm", "ip", "-q"});
  ASSERT_EQ(glpk.exit_code, 0) << glpk.err;
  EXPECT_EQ(parse(glpk.out)["solver"]["mipSolver"], "glpk");
  // Non-contiguous, time-limited: never worse than its start (the DP's split), with its own bound.
  RunResult free = run({"partition", throughput, "--algorithm", "ip-noncontig", "--mip-solver", "cbc",
                        "--time-limit", "5", "-q"});
  ASSERT_EQ(free.exit_code, 0) << free.err;
  nlohmann::ordered_json fj = parse(free.out);
  EXPECT_LE(fj["maxLoad"].get<double>(), 17.78990625 + 1e-9);
  EXPECT_LE(fj["bound"].get<double>(), fj["maxLoad"].get<double>());
  EXPECT_EQ(fj["solver"]["mipSolver"], "cbc");
  // Latency: Table 4's optimum on layer BERT-24 (the greedy's split, proven optimal).
  RunResult latency = run({"partition", workloadPath(kBert24Latency).string(), "--objective", "latency",
                           "--algorithm", "ip", "--mip-solver", "cbc", "--time-limit", "30", "-q"});
  ASSERT_EQ(latency.exit_code, 0) << latency.err;
  nlohmann::ordered_json lj = parse(latency.out);
  EXPECT_NEAR(lj["totalLatency"].get<double>(), 100.2185, 1e-4);
  EXPECT_EQ(lj["solver"]["mipSolver"], "cbc");
  // The bound command's programs.
  RunResult bound = run({"bound", throughput, "--method", "bottleneck", "--mip-solver", "cbc", "--time-limit",
                         "10", "-q"});
  ASSERT_EQ(bound.exit_code, 0) << bound.err;
  nlohmann::ordered_json bj = parse(bound.out);
  EXPECT_EQ(bj["mipSolver"], "cbc");
  EXPECT_GT(bj["lowerBound"].get<double>(), 0.0);
  EXPECT_LE(bj["lowerBound"].get<double>(), 17.78990625);
}

TEST_F(CliTest, LatencyAndIpErrors) {
  const std::string workload = workloadPath(kBert24Latency).string();
  // Infeasible: 1 MB accelerators and no CPU.
  RunResult r = run({"partition", workload, "--objective", "latency", "--algorithm", "greedy", "--memory",
                     "1000000", "--cpus", "0", "-o", (work_ / "x.json").string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("infeasible"), std::string::npos) << r.err;
  EXPECT_TRUE(workFiles().empty());
  // Usage errors.
  EXPECT_EQ(run({"partition", workload, "--algorithm", "greedy"}).exit_code, 2);
  EXPECT_EQ(run({"partition", workload, "--objective", "speed"}).exit_code, 2);
  EXPECT_EQ(run({"partition", workload, "--mip-gap", "1.5"}).exit_code, 2);
  RunResult bad_solver = run({"partition", workload, "--mip-solver", "gurobi"});
  EXPECT_EQ(bad_solver.exit_code, 2);
  EXPECT_NE(bad_solver.err.find("--mip-solver must be glpk or cbc (got 'gurobi')"), std::string::npos)
      << bad_solver.err;
  EXPECT_EQ(run({"bound", workload, "--mip-solver", "GLPK"}).exit_code, 2);
  EXPECT_EQ(run({"place", model("resnet50_light.onnx"), "--mip-solver", "xpress"}).exit_code, 2);
  EXPECT_EQ(run({"partition", workload, "--subgraphs-per-accelerator", "0"}).exit_code, 2);
  EXPECT_EQ(run({"partition", workload, "--gpipe"}).exit_code, 2);
  EXPECT_EQ(run({"partition", workload, "--gpipe", "--algorithm", "ip", "--objective", "latency"}).exit_code,
            2);
  RunResult bad_objective = run({"evaluate", workload, "--split", workload, "--objective", "speed"});
  EXPECT_EQ(bad_objective.exit_code, 2);
}

}  // namespace ip_cli_test
}  // namespace placer::testing
