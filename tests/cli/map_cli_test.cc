// onnx-placer map: a hand-computed stage graph on a three-device line, the pipeline.json of a model
// placed on the DGX-1 mapped onto its NVLinks, and the refusals.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/cli/cli_fixture.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace {

using json = nlohmann::json;

// Devices a - b - c: a-b at 10 GB/s, b-c at 1 GB/s, each at 0.1 GB/s to the host.
const char* kLine = R"({"kinds": {"x": {"memory": 1e9, "peak_flops": 1e12, "memory_bandwidth": 1e11}},
  "devices": [{"name": "a", "kind": "x"}, {"name": "b", "kind": "x"}, {"name": "c", "kind": "x"}],
  "links": [{"between": ["a", "b"], "bandwidth": 1e10}, {"between": ["b", "c"], "bandwidth": 1e9}],
  "host": {"bandwidth": 1e8}, "cpus": {"count": 0}})";

TEST_F(CliTest, MapPutsTheHeavyEdgeOnTheFastLink) {
  spit(work_ / "line.json", kLine);
  spit(work_ / "stages.json", R"({"stages": [{"compute": 1e-3, "weight_bytes": 0}, {"compute": 1e-3, "weight_bytes": 0},
    {"compute": 1e-3, "weight_bytes": 0}], "edges": [{"from": 0, "to": 1, "bytes": 1e6}, {"from": 1, "to": 2, "bytes": 1e8}]})");
  RunResult r = run({"map", (work_ / "stages.json").string(), "--topology", (work_ / "line.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out);
  // Consecutive: stage 1 on b pays 1 ms + 0.1 ms (1 MB at 10 GB/s) + 100 ms (100 MB at 1 GB/s).
  EXPECT_DOUBLE_EQ(out["consecutiveMaxStageTime"].get<double>(), 1e-3 + 1e-4 + 1e-1);
  // Best: stages 1 and 2 on a and b, stage 0 on c: 1 ms + 1 ms (1 MB at 1 GB/s) + 10 ms.
  EXPECT_DOUBLE_EQ(out["maxStageTime"].get<double>(), 1e-3 + 1e-3 + 1e-2);
  EXPECT_EQ(out["mapping"][0], "c");
  EXPECT_EQ((std::set<std::string>{out["mapping"][1], out["mapping"][2]}), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(out["status"], "optimal");
  EXPECT_EQ(out["cost"], "p2p");
  EXPECT_NEAR(out["speedup"].get<double>(), 0.1011 / 0.012, 1e-9);
  EXPECT_EQ(out["consecutiveMapping"], json::array({"a", "b", "c"}));

  // Refusals: no topology, a bad cost, more stages than devices.
  EXPECT_EQ(run({"map", (work_ / "stages.json").string()}).exit_code, 2);
  EXPECT_EQ(run({"map", (work_ / "stages.json").string(), "--topology", "dgx-h100", "--map-cost", "ring"}).exit_code, 2);
  r = run({"map", (work_ / "stages.json").string(), "--topology", (work_ / "line.json").string(), "--replicas", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("need 6 devices; the machine has 3"), std::string::npos) << r.err;
}

TEST_F(CliTest, MapReadsThePipelineJsonOfAPlacedModel) {
  const std::string stages = (work_ / "stages").string();
  RunResult r = run({"place", model("resnet50_light.onnx"), "--devices", "dgx1-8xv100-nvlink", "--accelerators", "4",
                     "--cpus", "0", "--algorithm", "dp", "--stages-dir", stages, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json manifest = json::parse(slurp(work_ / "stages" / "pipeline.json"));
  r = run({"map", stages + "/pipeline.json", "--topology", "dgx1-8xv100-nvlink", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out["mapping"].size(), manifest["stages"].size());
  std::set<std::string> devices;
  for (const auto& d : out["mapping"]) devices.insert(d.get<std::string>());
  EXPECT_EQ(devices.size(), out["mapping"].size()) << "distinct devices";
  EXPECT_EQ(out["status"], "optimal");
  EXPECT_LE(out["maxStageTime"].get<double>(), out["consecutiveMaxStageTime"].get<double>());
  // Each stage's time is at least its compute.
  for (std::size_t s = 0; s < manifest["stages"].size(); ++s)
    EXPECT_GE(out["stageTimes"][s].get<double>(), manifest["stages"][s]["compute_seconds"].get<double>());
}

}  // namespace
}  // namespace placer::testing
