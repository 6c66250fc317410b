// The CLI's model commands on the bundled ONNX models: inspect, place, export-workload, and their
// errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_fixture.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace {

using nlohmann::json;

std::string model(const std::string& name) {
  return dataPath("models/" + name).string();
}

TEST_F(CliTest, InspectReportsOperatorsWeightsAndFlops) {
  RunResult r = run({"inspect", model("resnet50_light.onnx"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_EQ(out["operators"], 122);
  EXPECT_EQ(out["op_types"]["Conv"], 53);
  EXPECT_NEAR(out["macs"].get<double>() / 1e9, 4.1, 0.05 * 4.1);
  EXPECT_NEAR(out["weights"]["bytes"].get<double>() / 1e6, 102.1, 0.5);
  EXPECT_TRUE(out["tensors_without_static_shape"].empty());
  r = run({"inspect", model("bert_base_l3_light.onnx")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 tensor(s) without a static shape"), std::string::npos) << r.out;
}

TEST_F(CliTest, PlaceReportsEveryStage) {
  const std::string report = (work_ / "report.json").string();
  RunResult r =
      run({"place", model("bert_base_l3_light.onnx"), "--accelerators", "3", "--report", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(r.err.empty());
  json out = json::parse(slurp(report));
  EXPECT_EQ(out["solver"]["status"], "optimal");
  double worst = 0;
  int nodes = 0;
  for (const auto& stage : out["stages"]) {
    worst = std::max(worst, stage["load_seconds"].get<double>());
    nodes += stage["nodes"].get<int>();
  }
  EXPECT_DOUBLE_EQ(worst, out["max_load_seconds"].get<double>());
  EXPECT_EQ(nodes,
            json::parse(run({"inspect", model("bert_base_l3_light.onnx"), "--json"}).out)["operators"]);
  EXPECT_NE(out["layer_assignment_settings"].get<std::string>().find("gpu:0(=stage0)"), std::string::npos);
}

TEST_F(CliTest, ExportedWorkloadHasTheSameOptimum) {
  for (const char* name : {"resnet50_light.onnx", "bert_base_l3_light.onnx"}) {
    const std::string workload = (work_ / "w.json").string();
    RunResult exported = run({"export-workload", model(name), "-o", workload, "-q"});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    RunResult partitioned = run({"partition", workload, "-q"});
    ASSERT_EQ(partitioned.exit_code, 0) << partitioned.err;
    RunResult placed = run({"place", model(name), "-q"});
    ASSERT_EQ(placed.exit_code, 0) << placed.err;
    EXPECT_NEAR(json::parse(partitioned.out)["maxLoad"].get<double>(),
                json::parse(placed.out)["max_load_seconds"].get<double>(), 1e-12)
        << name;
  }
}

TEST_F(CliTest, PlaceUsesDeviceFilesPresetsAndDims) {
  RunResult r = run({"place", model("light_squeezenet.onnx"), "--devices", "dgx1-8xv100", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(json::parse(r.out)["devices"].get<std::string>().find("V100"), std::string::npos) << r.out;
  const std::string spec = write("d.json", R"({"name": "tiny", "accelerators": {"count": 2, "memory": 1e12,
      "peak_flops": 1e13, "memory_bandwidth": 1e12}, "cpus": {"count": 1, "peak_flops": 1e11,
      "memory_bandwidth": 1e10}, "link": {"bandwidth": 1e10}})");
  r = run({"place", model("light_squeezenet.onnx"), "--devices", spec, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["devices"], "tiny");
  EXPECT_EQ(run({"place", model("light_squeezenet.onnx"), "--dim", "N=4", "-q"}).exit_code, 0);
}

TEST_F(CliTest, ModelCommandErrors) {
  RunResult r = run({"place", (work_ / "missing.onnx").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("missing.onnx"), std::string::npos) << r.err;
  const std::string text = write("text.onnx", "not a model");
  r = run({"inspect", text});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not a valid ONNX model"), std::string::npos) << r.err;
  r = run({"place", model("resnet50_light.onnx"), "--devices", "no-such-preset"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("pcie3-4x16gb"), std::string::npos) << "lists the presets: " << r.err;
  const std::string bad = write("bad.json", R"({"accelerators": {"count": -1}})");
  r = run({"place", model("resnet50_light.onnx"), "--devices", bad});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
  EXPECT_EQ(run({"place", model("resnet50_light.onnx"), "--dim", "N"}).exit_code, 2);
  EXPECT_EQ(run({"place", model("resnet50_light.onnx"), "--objective", "latency"}).exit_code, 2);
  // Memory too small for the largest weight and no CPU: infeasible, nothing written.
  const std::string report = (work_ / "r.json").string();
  r = run({"place", model("vgg16_light.onnx"), "--memory", "1000000", "--cpus", "0", "--report", report});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("infeasible"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(report));
}

TEST_F(CliTest, PlaceWritesTheAnnotatedModelAndStages) {
  const std::string input = (work_ / "model.onnx").string();
  fs::copy_file(model("bert_base_l3_light.onnx"), input);
  const std::string before = slurp(input);
  const std::string out = (work_ / "placed.onnx").string(), stages = (work_ / "stages").string();
  RunResult r = run({"place", input, "--accelerators", "3", "-o", out, "--stages-dir", stages, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(input), before) << "the input is never modified";
  EXPECT_GT(fs::file_size(out), 0u);
  json manifest = json::parse(slurp(stages + "/pipeline.json"));
  const json report = json::parse(r.out);
  ASSERT_EQ(manifest["stages"].size(), report["stages"].size());
  for (const auto& stage : manifest["stages"])
    EXPECT_TRUE(fs::exists(stages + "/" + stage["file"].get<std::string>()));
  EXPECT_EQ(manifest["layer_assignment_settings"], report["layer_assignment_settings"]);
  // Deterministic: the same input gives byte-identical outputs.
  const std::string out2 = (work_ / "placed2.onnx").string();
  ASSERT_EQ(run({"place", input, "--accelerators", "3", "-o", out2, "-q"}).exit_code, 0);
  EXPECT_EQ(slurp(out), slurp(out2));

  EXPECT_EQ(run({"place", input, "-o", input, "-q"}).exit_code, 1) << "refuses to write over the input";
  EXPECT_EQ(slurp(input), before);
  EXPECT_EQ(run({"place", input, "--annotate", "xml"}).exit_code, 2);
  // An infeasible placement writes nothing at all.
  const std::string none = (work_ / "none.onnx").string(), no_stages = (work_ / "no-stages").string();
  r = run({"place", model("vgg16_light.onnx"), "--memory", "1000000", "--cpus", "0", "-o", none,
           "--stages-dir", no_stages});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(fs::exists(none));
  EXPECT_FALSE(fs::exists(no_stages));
}

TEST_F(CliTest, CostProfilesOverrideTheRoofline) {
  const std::string profile = dataPath("profiles/own_ms.json").string();
  RunResult plain = run({"export-workload", model("resnet50_light.onnx"), "-q"});
  RunResult profiled = run({"export-workload", model("resnet50_light.onnx"), "--cost-profile", profile});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(profiled.exit_code, 0) << profiled.err;
  EXPECT_NE(profiled.err.find("cost profile gives times for"), std::string::npos) << profiled.err;
  EXPECT_NE(plain.out, profiled.out) << "profiled operators take the measured times";
  const std::string broken = write("broken.json", R"({"version": 1, "unit": "minutes", "nodes": {}})");
  RunResult bad = run({"place", model("resnet50_light.onnx"), "--cost-profile", broken});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("broken.json"), std::string::npos) << bad.err;
}

TEST_F(CliTest, CostPluginsAreAskedFirst) {
  RunResult plain = run({"export-workload", model("resnet50_light.onnx"), "-q"});
  RunResult plugged =
      run({"export-workload", model("resnet50_light.onnx"), "--cost-plugin", ONNX_PLACER_TEST_PLUGIN, "-q"});
  ASSERT_EQ(plugged.exit_code, 0) << plugged.err;
  json nodes = json::parse(plugged.out)["nodes"];
  for (const auto& node : nodes) {
    if (node["name"] == "/conv1/Conv") {
      EXPECT_DOUBLE_EQ(node["fpgaLatency"].get<double>(), 3e-6);  // 3 input channels
    }
  }
  EXPECT_NE(plain.out, plugged.out);
  RunResult not_plugin =
      run({"place", model("resnet50_light.onnx"), "--cost-plugin", ONNX_PLACER_NOT_A_PLUGIN});
  EXPECT_EQ(not_plugin.exit_code, 1);
  EXPECT_NE(not_plugin.err.find("not an onnx-placer cost plugin"), std::string::npos) << not_plugin.err;
}

}  // namespace
}  // namespace placer::testing
