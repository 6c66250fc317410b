// onnx-placer topology: writes specifications that --devices reads, the same for a seed; a topology
// of one kind places a model exactly as the equivalent accelerators/link specification does; bad
// requests are usage errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/cli_fixture.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace topology_cli_test {

using json = nlohmann::json;

TEST_F(CliTest, TopologyWritesWhatDevicesReadsAndPlacesAsTheEquivalentSpec) {
  const std::string mesh = (work_ / "mesh.json").string();
  RunResult r = run({"topology", "mesh", "--dims", "2x2", "--bandwidth", "1e11", "--latency", "1e-6", "-o", mesh});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json spec = json::parse(slurp(mesh));
  EXPECT_EQ(spec["devices"].size(), 4u);
  EXPECT_EQ(spec["links"].size(), 4u);
  EXPECT_EQ(spec["kinds"].size(), 1u);
  // The solvers see 4 accelerators of the default preset's figures on its host link: the placement
  // and its value are the default preset's.
  const auto placed = [&](const std::string& devices) {
    RunResult p = run({"place", model("resnet50_light.onnx"), "--devices", devices, "--algorithm", "dp", "-q"});
    EXPECT_EQ(p.exit_code, 0) << p.err;
    json report = json::parse(p.out);
    report.erase("seconds");
    report["solver"].erase("solver_seconds");
    report["solver"].erase("total_seconds");
    report.erase("devices_name");
    // Which device runs each stage is the mapping's (the mesh's physical devices).
    for (json& stage : report["stages"]) {
      stage.erase("device");
      stage.erase("device_name");
    }
    return report;
  };
  const json on_mesh = placed(mesh), on_preset = placed("pcie3-4x16gb");
  EXPECT_EQ(on_mesh["max_load_seconds"], on_preset["max_load_seconds"]);
  EXPECT_EQ(on_mesh["stages"], on_preset["stages"]);
  EXPECT_EQ(on_mesh["mapping"]["mapping"].size(), on_mesh["stages"].size());
  EXPECT_FALSE(on_preset.contains("mapping"));

  // The same seed writes the same machine; another seed another one.
  auto uniform = [&](const std::string& seed) {
    RunResult u = run({"topology", "uniform", "--count", "6", "--bandwidth", "1e11", "--min-bandwidth", "1e9",
                       "--seed", seed});
    EXPECT_EQ(u.exit_code, 0) << u.err;
    return u.out;
  };
  EXPECT_EQ(uniform("3"), uniform("3"));
  EXPECT_NE(uniform("3"), uniform("4"));

  // A preset in the topology form is written out and reads back.
  r = run({"topology", "dgx1-8xv100-nvlink", "-o", (work_ / "dgx1.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"place", model("resnet50_light.onnx"), "--devices", (work_ / "dgx1.json").string(), "--accelerators",
           "4", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;

  EXPECT_EQ(run({"topology", "mesh", "--bandwidth", "1e11"}).exit_code, 2) << "mesh needs --dims";
  EXPECT_EQ(run({"topology", "mesh", "--dims", "4x4x4x4", "--bandwidth", "1e11"}).exit_code, 2);
  EXPECT_EQ(run({"topology", "pcie3-4x16gb"}).exit_code, 2) << "no topology in that preset";
  EXPECT_EQ(run({"topology", "torus", "--dims", "4x4"}).exit_code, 1) << "no bandwidth";
}

}  // namespace topology_cli_test
}  // namespace placer::testing
