// Shared weights through the CLI: --shared-weights on place, export-workload, partition and evaluate;
// a weight that copies would not fit is kept on one device (auto colocates), one they fit is copied,
// and the report says which weights are copied and what the copies cost.
#include <gtest/gtest.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace shared_weights_test {

using Json = nlohmann::json;

// x -> A -> {b1, b2} -> Add -> y. A reads wa, b1 and b2 read w, y reads wc (1 MiB each); the times
// come from a profile (milliseconds on an accelerator): A 1, b1 2, b2 2, Add 0, y 1. Transfers are
// free (a link of 1e15 bytes/s). On 3 accelerators:
//   w copied:    {A, b1} | {b2} | {Add, y}  (or {A} | {b1} | {b2, Add, y}): max-load 3 ms
//   w once:      {A} | {b1, b2, Add} | {y}:                                   max-load 4 ms
// With 1.2 MiB per accelerator a device holds one weight, so no split with two copies of w fits.
class SharedWeights : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    onnx::ModelProto proto;
    auto status = onnx::OnnxParser::Parse(proto, R"(
      <ir_version: 8, opset_import: ["" : 13]>
      g (float[1, 512] x) => (float[1, 512] y) {
        shape = Constant <value = int64[2] {512, 512}> ()
        wa = ConstantOfShape <value = float[1] {0.01}> (shape)
        w = ConstantOfShape <value = float[1] {0.01}> (shape)
        wc = ConstantOfShape <value = float[1] {0.01}> (shape)
        a = MatMul(x, wa)
        b1 = MatMul(a, w)
        b2 = MatMul(a, w)
        s = Add(b1, b2)
        y = MatMul(s, wc)
      })");
    ASSERT_TRUE(status.IsOK()) << status.ErrorMessage();
    const char* names[] = {"shape", "make_wa", "make_w", "make_wc", "A", "b1", "b2", "add", "y"};
    for (int i = 0; i < proto.graph().node_size(); ++i)
      proto.mutable_graph()->mutable_node(i)->set_name(names[i]);
    model_ = write("fork.onnx", proto.SerializeAsString());
    profile_ = write("times.json", R"({"version": 1, "unit": "ms", "nodes": {
        "A": {"accelerator": 1, "cpu": 100}, "b1": {"accelerator": 2, "cpu": 100},
        "b2": {"accelerator": 2, "cpu": 100}, "add": {"accelerator": 0, "cpu": 100},
        "y": {"accelerator": 1, "cpu": 100}}})");
  }

  std::string devices(double memory) {
    return write("devices.json", R"({"accelerators": {"count": 3, "memory": )" + std::to_string(memory) +
                                     R"(, "peak_flops": 1e13, "memory_bandwidth": 1e12},
        "cpus": {"count": 0}, "link": {"bandwidth": 1e15, "latency": 0}})");
  }

  // place with a report; returns the report.
  Json place(double memory, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"place",
                                  model_,
                                  "--devices",
                                  devices(memory),
                                  "--cost-profile",
                                  profile_,
                                  "--report",
                                  (work_ / "report.json").string(),
                                  "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(slurp(work_ / "report.json"), nullptr, false);
  }

  std::string model_, profile_;
};

TEST_F(SharedWeights, CopiesAWeightWhereCopiesFitAndKeepsItOnceWhereTheyDoNot) {
  const Json ample = place(1e12);
  ASSERT_TRUE(ample.is_object());
  EXPECT_NEAR(ample["max_load_seconds"].get<double>(), 3e-3, 1e-9);
  EXPECT_EQ(ample["shared_weights"]["mode"], "replicate");
  ASSERT_EQ(ample["shared_weights"]["replicated"].size(), 1u) << ample.dump(2);
  const Json& copied = ample["shared_weights"]["replicated"][0];
  EXPECT_EQ(copied["name"], "w");
  EXPECT_EQ(copied["bytes"].get<double>(), 512 * 512 * 4);
  EXPECT_EQ(copied["devices"].size(), 2u);
  EXPECT_EQ(copied["added_bytes"].get<double>(), 512 * 512 * 4);
  EXPECT_EQ(ample["shared_weights"]["replicated_added_bytes"].get<double>(), 512 * 512 * 4);

  // One weight per accelerator: two copies of w cannot fit, so auto keeps b1 and b2 together.
  const Json tight = place(1.2 * 1024 * 1024);
  ASSERT_TRUE(tight.is_object());
  EXPECT_NEAR(tight["max_load_seconds"].get<double>(), 4e-3, 1e-9);
  EXPECT_TRUE(tight["shared_weights"]["replicated"].empty()) << tight.dump(2);
  ASSERT_EQ(tight["stages"].size(), 3u);
  for (const Json& stage : tight["stages"])
    EXPECT_LE(stage["memory_bytes"].get<double>(), 1.2 * 1024 * 1024) << stage.dump();

  // --shared-weights colocate keeps the readers of a weight of 1 MiB or more together even with room
  // for copies.
  const Json colocated = place(1e12, {"--shared-weights", "colocate"});
  ASSERT_TRUE(colocated.is_object());
  EXPECT_EQ(colocated["shared_weights"]["mode"], "colocate");
  EXPECT_TRUE(colocated["shared_weights"]["replicated"].empty());
  EXPECT_NEAR(colocated["max_load_seconds"].get<double>(), 4e-3, 1e-9);
}

TEST_F(SharedWeights, ExportedWorkloadCarriesTheWeightAndSolvesTheSame) {
  const std::string workload = (work_ / "fork.json").string();
  for (double memory : {1e12, 1.2 * 1024 * 1024}) {
    RunResult exported = run({"export-workload", model_, "--devices", devices(memory), "--cost-profile",
                              profile_, "-o", workload, "-q"});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    const Json problem = Json::parse(slurp(workload));
    ASSERT_EQ(problem["sharedWeights"].size(), 1u);
    EXPECT_EQ(problem["sharedWeights"][0]["name"], "w");
    EXPECT_EQ(problem["sharedWeights"][0]["nodes"].size(), 2u);
    RunResult solved = run({"partition", workload, "-q"});
    ASSERT_EQ(solved.exit_code, 0) << solved.err;
    const Json placement = Json::parse(solved.out);
    EXPECT_NEAR(placement["maxLoad"].get<double>(), memory > 1e9 ? 3e-3 : 4e-3, 1e-9);
    RunResult colocated = run({"partition", workload, "--shared-weights", "colocate", "-q"});
    ASSERT_EQ(colocated.exit_code, 0) << colocated.err;
    EXPECT_NEAR(Json::parse(colocated.out)["maxLoad"].get<double>(), 4e-3, 1e-9);
  }
}

TEST_F(SharedWeights, OptionErrorsAndTrainingGraphs) {
  RunResult bad = run({"place", model_, "--shared-weights", "sometimes"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--shared-weights must be replicate, colocate or auto (got 'sometimes')"),
            std::string::npos)
      << bad.err;

  // A training workload: a forward node and its backward partner each, the two forward nodes
  // reading one weight. auto colocates them; replicate is refused with the reason.
  const std::string training = write("training.json", R"({"maxSizePerFPGA": 100, "maxFPGAs": 2, "maxCPUs": 0,
    "nodes": [{"id": 0, "cpuLatency": 9, "fpgaLatency": 1, "colorClass": 0},
              {"id": 1, "cpuLatency": 9, "fpgaLatency": 1, "colorClass": 1},
              {"id": 2, "cpuLatency": 9, "fpgaLatency": 2, "colorClass": 0, "isBackwardNode": 1},
              {"id": 3, "cpuLatency": 9, "fpgaLatency": 2, "colorClass": 1, "isBackwardNode": 1}],
    "edges": [{"sourceId": 0, "destId": 1, "cost": 1}, {"sourceId": 3, "destId": 2, "cost": 1}],
    "sharedWeights": [{"name": "tied", "size": 10, "nodes": [0, 1]}]})");
  RunResult together = run({"partition", training, "-q"});
  ASSERT_EQ(together.exit_code, 0) << together.err;
  const Json placement = Json::parse(together.out);
  EXPECT_DOUBLE_EQ(placement["maxLoad"].get<double>(), 6) << "both pairs on one accelerator";
  RunResult refused = run({"partition", training, "--shared-weights", "replicate"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("shared weights cannot be replicated in a training graph"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find(training), std::string::npos) << "names the file: " << refused.err;

  const std::string unknown = write("unknown.json", R"({"maxSizePerFPGA": 100, "maxFPGAs": 1, "maxCPUs": 0,
    "nodes": [{"id": 0, "cpuLatency": 1, "fpgaLatency": 1}], "edges": [],
    "sharedWeights": [{"name": "w", "size": 10, "nodes": [0, 7]}]})");
  RunResult missing = run({"partition", unknown});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find(unknown + ": sharedWeights[0] (\"w\"): nodes: 7 is not a node id"),
            std::string::npos)
      << missing.err;
}

}  // namespace shared_weights_test
}  // namespace placer::testing
