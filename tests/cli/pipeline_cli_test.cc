// --algorithm and --pipeline together: the algorithm is the partition pass's argument whatever the
// pipeline's text says of it ("partition", "partition=auto", "partition=dp"), and a pipeline given
// without --algorithm runs, and reports, its own partition pass's solver.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace pipeline_cli_test {

constexpr const char* kReductions = "subdivide,colocate,orphans,scc,fold-leaves,";

class PipelineCli : public CliTest {
 protected:
  // The partition pass's log line and the output's "solver" object of a partition run.
  std::pair<std::string, nlohmann::json> partition(const std::vector<std::string>& options) {
    std::vector<std::string> args{"partition",
                                  workloadPath("throughput-inputs/LayerGraphs/bert24_inference.json").string(),
                                  "--log"};
    args.insert(args.end(), options.begin(), options.end());
    const RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string line;
    std::istringstream err(r.err);
    for (std::string l; std::getline(err, l);) {
      if (l.find("pass partition") != std::string::npos) line = l;
    }
    const auto out = nlohmann::json::parse(r.out, nullptr, false);
    return {line, out.is_object() ? out["solver"] : nlohmann::json()};
  }
};

TEST_F(PipelineCli, AlgorithmIsThePartitionPassArgumentWhateverThePipelineSays) {
  for (const std::string pass : {"partition", "partition=auto", "partition=dp", "partition=ip"}) {
    const auto [log, solver] = partition({"--pipeline", kReductions + pass + ",expand", "--algorithm", "dpl"});
    EXPECT_NE(log.find("  dpl: feasible"), std::string::npos) << pass << ": " << log;
    EXPECT_EQ(solver["algorithm"], "dpl") << pass;
  }
}

TEST_F(PipelineCli, APipelineWithoutAlgorithmRunsAndReportsItsOwnSolver) {
  auto [log, solver] = partition({"--pipeline", std::string(kReductions) + "partition,expand"});
  EXPECT_NE(log.find("  dp: optimal"), std::string::npos) << log;
  EXPECT_EQ(solver["algorithm"], "dp");
  std::tie(log, solver) = partition({"--pipeline", std::string(kReductions) + "partition=dpl,expand"});
  EXPECT_NE(log.find("  dpl: feasible"), std::string::npos) << log;
  EXPECT_EQ(solver["algorithm"], "dpl");
  std::tie(log, solver) = partition({"--pipeline", std::string(kReductions) + "partition=auto,expand"});
  EXPECT_NE(log.find("  auto -> dp: optimal"), std::string::npos) << log;
  EXPECT_EQ(solver["algorithm"], "auto");
}

TEST_F(PipelineCli, AnAlgorithmThePipelineCannotRunIsACommandLineError) {
  const RunResult r = run({"partition", workloadPath("throughput-inputs/LayerGraphs/bert24_inference.json").string(),
                           "--pipeline", std::string(kReductions) + "partition=greedy,expand"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("greedy is a latency solver"), std::string::npos) << r.err;
}

}  // namespace pipeline_cli_test
}  // namespace placer::testing
