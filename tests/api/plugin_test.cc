// Pass plugins (onnx_placer/plugin.h) through the CLI and the C++ API: the example plugin's pass runs
// inside a pipeline and changes the placement, its cost model costs every operator; a plugin built
// for another ABI version is refused with both versions named; a library without the entry point, a
// missing file and a pass named like a built-in one are clear errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "onnx_placer/placer.h"
#include "onnx_placer/version.h"
#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace plugin_test {

using Json = nlohmann::json;

constexpr const char* kReductions = "subdivide,colocate,orphans,scc,fold-leaves";

class Plugin : public CliTest {
 protected:
  // place's report on the squeezenet model with the given extra options.
  Json report(const std::vector<std::string>& options, RunResult* out = nullptr) {
    std::vector<std::string> args{"place", model("light_squeezenet.onnx"), "--accelerators", "1", "--algorithm", "dp"};
    args.insert(args.end(), options.begin(), options.end());
    const RunResult r = run(args);
    if (out) *out = r;
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out, nullptr, false);
  }
};

int cpuStages(const Json& report) {
  int n = 0;
  for (const Json& stage : report["stages"]) n += stage["device"] == "cpu";
  return n;
}

TEST_F(Plugin, ThePluginsPassRunsInsideAPipeline) {
  // On one accelerator and a CPU core the DP runs everything on the accelerator; with CPU times
  // scaled by 10^-6 by the plugin's pass, the CPU core takes a share and the max-load falls.
  const Json plain = report({});
  ASSERT_EQ(cpuStages(plain), 0);
  RunResult run_result;
  const Json scaled = report({"--pass-plugin", ONNX_PLACER_EXAMPLE_PLUGIN, "--pipeline",
                              std::string("scale-cpu=0.000001,") + kReductions + ",partition,expand"},
                             &run_result);
  EXPECT_EQ(cpuStages(scaled), 1) << run_result.out;
  EXPECT_GT(plain["max_load_seconds"].get<double>(), scaled["max_load_seconds"].get<double>());
  // A bad argument is the pass's own error, with its message.
  const RunResult bad = run({"place", model("light_squeezenet.onnx"), "--pass-plugin", ONNX_PLACER_EXAMPLE_PLUGIN,
                             "--pipeline", std::string(kReductions) + ",scale-cpu=-1,partition,expand"});
  EXPECT_EQ(bad.exit_code, 4) << bad.err;
  EXPECT_NE(bad.err.find("scale-cpu takes a positive factor"), std::string::npos) << bad.err;
  // Costs set after the graph was contracted could not be those of the user's model: refused.
  const RunResult late = run({"place", model("light_squeezenet.onnx"), "--pass-plugin", ONNX_PLACER_EXAMPLE_PLUGIN,
                              "--pipeline", std::string(kReductions) + ",scale-cpu=2,partition,expand"});
  EXPECT_EQ(late.exit_code, 4) << late.err;
  EXPECT_NE(late.err.find("changed node costs after an earlier pass changed the graph"), std::string::npos)
      << late.err;
  // The pass is listed nowhere without the plugin: an unknown pass.
  const RunResult unknown = run({"place", model("light_squeezenet.onnx"), "--pipeline",
                                 std::string(kReductions) + ",scale-cpu=2,partition,expand"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("unknown pass 'scale-cpu'"), std::string::npos) << unknown.err;
}

TEST_F(Plugin, ThePluginsCostModelCostsEveryOperator) {
  const Json plain = report({"--cpus", "0"});
  const Json constant = report({"--cpus", "0", "--pass-plugin", ONNX_PLACER_EXAMPLE_PLUGIN});
  ASSERT_EQ(constant["stages"].size(), 1u);
  const Json& stage = constant["stages"][0];
  // 1 ms per operator, plus the device set's operator overhead (estimated times pay it).
  EXPECT_NEAR(stage["compute_seconds"].get<double>() - stage["operator_overhead_seconds"].get<double>(),
              stage["nodes"].get<double>() * 1e-3, 1e-9);
  EXPECT_NE(plain["max_load_seconds"], constant["max_load_seconds"]);
}

TEST_F(Plugin, AWrongAbiVersionIsRefusedWithBothVersions) {
  const RunResult r = run({"place", model("light_squeezenet.onnx"), "--pass-plugin", ONNX_PLACER_WRONG_ABI_PLUGIN});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string theirs = std::to_string(ONNX_PLACER_ABI_VERSION + 1), ours = std::to_string(ONNX_PLACER_ABI_VERSION);
  EXPECT_NE(r.err.find("built for ABI version " + theirs + ", this onnx-placer speaks version " + ours),
            std::string::npos)
      << r.err;
}

TEST_F(Plugin, LibrariesThatAreNotPluginsAreClearErrors) {
  RunResult r = run({"place", model("light_squeezenet.onnx"), "--pass-plugin", ONNX_PLACER_NOT_A_PLUGIN});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("not an onnx-placer pass plugin (it must export onnx_placer_plugin_info"), std::string::npos)
      << r.err;
  r = run({"place", model("light_squeezenet.onnx"), "--pass-plugin", (work_ / "missing.so").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot load pass plugin"), std::string::npos) << r.err;
  r = run({"place", model("light_squeezenet.onnx"), "--pass-plugin", ONNX_PLACER_CLASHING_PLUGIN});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("registers the pass 'scc', which onnx-placer already has"), std::string::npos) << r.err;
  EXPECT_TRUE(workFiles().empty());
}

// On a machine of two kinds a pass that scales the accelerator time scales every kind's: with
// transfers free, doubling every time doubles the optimum exactly (had only the first kind's time
// doubled, the split and its value would change otherwise).
TEST_F(Plugin, SettingTheAcceleratorTimeScalesEveryKind) {
  spit(work_ / "two-kinds.json", R"({"kinds": {
      "fast": {"memory": 1e12, "peak_flops": 4e13, "memory_bandwidth": 2e12},
      "slow": {"memory": 1e12, "peak_flops": 1e13, "memory_bandwidth": 5e11}},
    "devices": [{"name": "f0", "kind": "fast"}, {"name": "s0", "kind": "slow"}, {"name": "s1", "kind": "slow"}],
    "host": {"bandwidth": 1e30}, "cpus": {"count": 0}})");
  auto maxLoad = [&](const std::string& pipeline) {
    const RunResult r = run({"place", model("resnet50_light.onnx"), "--devices", (work_ / "two-kinds.json").string(),
                             "--algorithm", "dp", "--pass-plugin", ONNX_PLACER_SCALE_ACCELERATOR_PLUGIN,
                             "--pipeline", pipeline});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out, nullptr, false)["max_load_seconds"].get<double>();
  };
  const double plain = maxLoad(std::string(kReductions) + ",partition,expand");
  const double doubled = maxLoad(std::string("scale-accelerator=2,") + kReductions + ",partition,expand");
  EXPECT_NEAR(doubled, 2 * plain, 1e-9 * plain);
}

TEST_F(Plugin, TheCppApiLoadsPluginsToo) {
  onnx_placer::Options options;
  options.accelerators = 1;
  options.algorithm = "dp";
  options.pass_plugins = {ONNX_PLACER_EXAMPLE_PLUGIN};
  options.pipeline = std::string("scale-cpu=0.000001,") + kReductions + ",partition,expand";
  auto placed = onnx_placer::placeFile(model("light_squeezenet.onnx"), options);
  ASSERT_TRUE(placed) << placed.status().message();
  EXPECT_EQ(cpuStages(Json::parse(placed->reportJson())), 1);
  options.pass_plugins = {ONNX_PLACER_WRONG_ABI_PLUGIN};
  auto refused = onnx_placer::placeFile(model("light_squeezenet.onnx"), options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code(), onnx_placer::Code::BadInput);
  EXPECT_NE(refused.status().message().find("ABI version"), std::string::npos);
}

}  // namespace plugin_test
}  // namespace placer::testing
