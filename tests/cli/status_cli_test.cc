// How the CLI reports a solver's own failure: "onnx-placer: internal error: ..." and exit status 4,
// apart from the errors a user can fix.
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace status_cli_test {

class StatusCli : public CliTest {};

TEST_F(StatusCli, ASolverFailureIsAnInternalErrorWithExitStatus4) {
  // Processing times GLPK's scaling cannot take: the integer program fails, the DP does not.
  const std::string workload = write("huge.json", R"({"maxSizePerFPGA": 1e9, "maxFPGAs": 2, "maxCPUs": 0,
    "nodes": [
      {"name": "a", "id": 1, "supportedOnFpga": 1, "cpuLatency": 1e200, "fpgaLatency": 1e200, "isBackwardNode": 0, "colorClass": 1, "size": 1e3},
      {"name": "b", "id": 2, "supportedOnFpga": 1, "cpuLatency": 1e200, "fpgaLatency": 1e200, "isBackwardNode": 0, "colorClass": 2, "size": 1e3}],
    "edges": [{"sourceId": 1, "destId": 2, "cost": 1.0}]})");
  RunResult r = run({"partition", workload, "--algorithm", "ip"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("onnx-placer: internal error: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("onnx-placer: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("outside the range the MIP solver takes"), std::string::npos) << r.err;
}

}  // namespace status_cli_test
}  // namespace placer::testing
