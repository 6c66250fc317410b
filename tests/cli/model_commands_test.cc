// The CLI's model commands on the bundled ONNX models and on small models written by the tests:
// inspect, place, export-workload, their errors, ONNX Runtime memory statistics, and models whose
// weights live in an external data file.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/cli/cli_fixture.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace model_commands_test {

using nlohmann::json;

TEST_F(CliTest, InspectReportsOperatorsWeightsAndFlops) {
  RunResult r = run({"inspect", model("resnet50_light.onnx"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_EQ(out["operators"], 122);
  EXPECT_EQ(out["op_types"]["Conv"], 53);
  // Operators of another domain are counted under it: ONNX Runtime's contrib Attention.
  r = run({"inspect", dataPath("fidelity/contrib_ops.onnx").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["op_types"]["Attention(com.microsoft)"], 1);
  EXPECT_EQ(json::parse(r.out)["op_types"]["MatMul"], 14);
  EXPECT_FALSE(json::parse(r.out)["op_types"].contains("Attention"));
  r = run({"inspect", model("resnet50_light.onnx"), "--json"});
  EXPECT_NEAR(out["macs"].get<double>() / 1e9, 4.1, 0.05 * 4.1);
  EXPECT_NEAR(out["weights"]["bytes"].get<double>() / 1e6, 102.1, 0.5);
  EXPECT_TRUE(out["tensors_without_static_shape"].empty());
  r = run({"inspect", model("bert_base_l3_light.onnx")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 tensor(s) without a static shape"), std::string::npos) << r.out;
  // The text gives FLOPs and multiply-accumulates with the prefix that fits, four digits.
  r = run({"inspect", model("resnet50_light.onnx")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("compute      8.207 GFLOPs (4.089 G multiply-accumulates) per sample"), std::string::npos)
      << r.out;
  onnx::ModelProto tiny;
  auto parsed = onnx::OnnxParser::Parse(tiny, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    tiny (float[1, 4] x, float[4, 4] w) => (float[1, 4] y) { y = MatMul(x, w) }
  )");
  ASSERT_TRUE(parsed.IsOK()) << parsed.ErrorMessage();
  r = run({"inspect", write("tiny.onnx", tiny.SerializeAsString())});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("compute      32 FLOPs (16 multiply-accumulates) per sample"), std::string::npos) << r.out;
}

// Issue 10: inspect says per op type how each operator was costed and what constant folding
// evaluated; place repeats the summary; an operator on the fallback cost is a warning with counts.
TEST_F(CliTest, InspectAndPlaceTellHowEachOperatorWasCosted) {
  const std::string mask = dataPath("fidelity/mask_range_where.onnx").string();
  RunResult r = run({"inspect", mask, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json fidelity = json::parse(r.out)["fidelity"];
  EXPECT_EQ(fidelity["operators"], 20);
  EXPECT_EQ(fidelity["formula"], 20);
  EXPECT_EQ(fidelity["fallback"], 0);
  EXPECT_GE(fidelity["folded_nodes"].get<int>(), 40) << "the mask's Shape/Range/Where arithmetic";
  bool range_folded = false;
  for (const auto& e : fidelity["op_types"])
    range_folded = range_folded || (e["op_type"] == "Range" && e["folded"] == 1 && e["formula"] == 0);
  EXPECT_TRUE(range_folded) << fidelity.dump();
  r = run({"inspect", mask});
  EXPECT_NE(r.out.find("fidelity     20 operators: 20 by exact formula, 0 measured, 0 on the fallback cost"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("folded       "), std::string::npos) << r.out;

  // A com.example operator has no formula: a warning naming it, in inspect and in place.
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* custom = m.add_opset_import();
  custom->set_domain("com.example");
  custom->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (const char* name : {"x", "z"}) {
    auto* info = std::string(name) == "x" ? g->add_input() : g->add_output();
    info->set_name(name);
    info->mutable_type()->mutable_tensor_type()->set_elem_type(1);
    for (int d : {2, 3})
      info->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  }
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("x");
  relu->add_output("y");
  auto* foo = g->add_node();
  foo->set_op_type("Foo");
  foo->set_domain("com.example");
  foo->add_input("y");
  foo->add_output("z");
  auto* vi = g->add_value_info();
  vi->set_name("y");
  *vi->mutable_type() = g->input(0).type();
  const std::string path = (work_ / "custom.onnx").string();
  spit(path, m.SerializeAsString());
  r = run({"inspect", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 operators: 1 by exact formula, 0 measured, 1 on the fallback cost"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 operator(s) on the fallback cost"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Foo (com.example) x1"), std::string::npos) << r.out;
  r = run({"place", path, "--accelerators", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("costs: 2 operators: 1 by exact formula"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("warning: 1 operator(s) on the fallback cost"), std::string::npos) << r.err;
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
  // On a topology: the exported edges keep their tensors' bytes, so the workload (its times in
  // seconds) maps onto the DGX-1's links as the model does.
  const std::string workload = (work_ / "t.json").string();
  const std::string report = (work_ / "report.json").string();
  RunResult exported =
      run({"export-workload", model("resnet50_light.onnx"), "--devices", "dgx1-8xv100-nvlink", "-o", workload, "-q"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  RunResult partitioned =
      run({"partition", workload, "--topology", "dgx1-8xv100-nvlink", "--time-unit", "1", "-q"});
  ASSERT_EQ(partitioned.exit_code, 0) << partitioned.err;
  RunResult placed =
      run({"place", model("resnet50_light.onnx"), "--topology", "dgx1-8xv100-nvlink", "--report", report, "-q"});
  ASSERT_EQ(placed.exit_code, 0) << placed.err;
  const json from_workload = json::parse(partitioned.out), from_model = json::parse(slurp(report));
  EXPECT_NEAR(from_workload["maxLoad"].get<double>(), from_model["max_load_seconds"].get<double>(), 1e-12);
  EXPECT_NEAR(from_workload["mapping"]["maxStageTime"].get<double>(),
              from_model["mapping"]["maxStageTime"].get<double>(), 1e-12);
  EXPECT_EQ(from_workload["mapping"]["mapping"], from_model["mapping"]["mapping"]);
  EXPECT_EQ(from_workload["mapping"]["stageGraph"]["edges"], from_model["mapping"]["stageGraph"]["edges"]);
  EXPECT_FALSE(from_model["mapping"]["stageGraph"]["edges"].empty());  // tensors cross the links
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
  // The report names the machine placed on: what the flags changed in the set is in its name.
  r = run({"place", model("light_squeezenet.onnx"), "--devices", spec, "--accelerators", "3", "--cpus", "0",
           "--memory", "2e9", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["devices"],
            "tiny (changed: 3 accelerators, 0 CPU cores, 2000000000 bytes per accelerator)");
  // --dim names a symbolic input dimension the model has; any other name is an error that lists them.
  EXPECT_EQ(
      run({"place", model("gpt_tied_light.onnx"), "--dim", "seq=16", "--dim", "batch=2", "-q"}).exit_code, 0);
  r = run({"place", model("gpt_tied_light.onnx"), "--dim", "sequence=16"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no input has a symbolic dimension named 'sequence' (the model's are: batch, seq)"),
            std::string::npos)
      << r.err;
  r = run({"place", model("light_squeezenet.onnx"), "--dim", "N=4"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("named 'N' (the model has none)"), std::string::npos) << r.err;
  // A value that makes a tensor many times an accelerator's memory is placed, with a warning naming it.
  r = run({"place", model("gpt_tied_light.onnx"), "--dim", "batch=1000", "--dim", "seq=1024", "--report",
           (work_ / "big.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: tensor '/lm_head/Gemm_output_0' [1024000, 50257] holds 2.06e+11 bytes, more "
                       "than 10 times an "
                       "accelerator's 1.72e+10: is a dimension value too large?"),
            std::string::npos)
      << r.err;
  // A value the model cannot take (a sequence longer than the 1024-row position table) is an error
  // naming the node where ONNX's shape inference finds the shapes disagree (it used to crash there).
  r = run({"place", model("gpt_tied_light.onnx"), "--dim", "seq=1025"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gpt_tied_light.onnx: ONNX's shape inference finds the model inconsistent at "
                       "(op_type:Add, node name: /Add): [ShapeInferenceError] Incompatible dimensions"),
            std::string::npos)
      << r.err;
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
  EXPECT_EQ(run({"place", model("resnet50_light.onnx"), "--objective", "energy"}).exit_code, 2);
  EXPECT_EQ(run({"place", model("resnet50_light.onnx"), "--algorithm", "greedy"}).exit_code, 2);
  EXPECT_EQ(run({"place", model("resnet50_light.onnx"), "--time-limit", "-1"}).exit_code, 2);
  // Memory too small for the largest weight and no CPU: infeasible, nothing written.
  const std::string report = (work_ / "r.json").string();
  r = run({"place", model("vgg16_light.onnx"), "--memory", "1000000", "--cpus", "0", "--report", report});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("infeasible"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(report));
  // Accelerators only, no CPU figures: the workload format cannot hold the missing CPU times.
  const std::string no_cpu = write("no_cpu.json", R"({"accelerators": {"count": 2, "memory": 1e10,
      "peak_flops": 1e13, "memory_bandwidth": 1e12}, "cpus": {"count": 0}, "link": {"bandwidth": 1e10}})");
  const std::string exported = (work_ / "w.json").string();
  r = run({"export-workload", model("light_squeezenet.onnx"), "--devices", no_cpu, "-o", exported});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("has no CPU time (the device specification gives no CPU figures"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(exported));
  EXPECT_EQ(run({"place", model("light_squeezenet.onnx"), "--devices", no_cpu, "-q"}).exit_code, 0)
      << "placing needs no CPU times";
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
  EXPECT_NE(profiled.err.find("cost profile: 5 of 122 operators matched (3 by name, 0 through renamed"),
            std::string::npos)
      << profiled.err;
  EXPECT_NE(plain.out, profiled.out) << "profiled operators take the measured times";
  const std::string broken = write("broken.json", R"({"version": 1, "unit": "minutes", "nodes": {}})");
  RunResult bad = run({"place", model("resnet50_light.onnx"), "--cost-profile", broken});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("broken.json"), std::string::npos) << bad.err;
}

// A CPU trace of an optimised graph: inspect says what it matched, on a CPU-only device set and,
// with accelerators, which operators mix a profiled CPU time with a roofline accelerator time.
TEST_F(CliTest, InspectShowsWhereTheTimesComeFrom) {
  const std::string trace = dataPath("profiles/ort130_light_squeezenet_cpu_optimized.json").string();
  RunResult cpus =
      run({"inspect", model("light_squeezenet.onnx"), "--devices", "cpu-only-8", "--cost-profile", trace});
  ASSERT_EQ(cpus.exit_code, 0) << cpus.err;
  EXPECT_NE(cpus.out.find("cost profile: 66 of 66 operators matched (10 by name, 29 through renamed kernels, "
                          "27 fused into those, 0 from 0 kernels placed by execution order"),
            std::string::npos)
      << cpus.out;
  EXPECT_NE(cpus.out.find("1 entries match no operator"), std::string::npos) << cpus.out;
  EXPECT_NE(cpus.out.find("profile: accelerator times for 0, cpu times for 66"), std::string::npos)
      << cpus.out;
  EXPECT_EQ(cpus.out.find("mixed"), std::string::npos) << cpus.out;
  RunResult mixed = run({"inspect", model("light_squeezenet.onnx"), "--cost-profile", trace, "--json"});
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  const auto json = nlohmann::json::parse(mixed.out);
  EXPECT_EQ(json["costs"]["mixed_sources"]["count"], 66);
  EXPECT_EQ(json["costs"]["mixed_sources"]["first"].size(), 10u);
  EXPECT_EQ(json["costs"]["devices"]["accelerators"], 4);
  // The overheads of a device file show, with what they add to the model.
  const std::string devices = write("overheads.json", R"({"accelerators": {"count": 0},
      "cpus": {"count": 2, "peak_flops": 7e10, "memory_bandwidth": 2e10, "op_overhead": 4e-6,
               "boundary_overhead": 3e-5, "boundary_bandwidth": 1e10}})");
  RunResult overheads = run({"inspect", model("light_squeezenet.onnx"), "--devices", devices});
  ASSERT_EQ(overheads.exit_code, 0) << overheads.err;
  EXPECT_NE(overheads.out.find("(0.264 ms of it operator overhead)"), std::string::npos) << overheads.out;
  EXPECT_NE(overheads.out.find("cpu: 4 us per operator, 30 us + bytes / 10 GB/s per boundary tensor"),
            std::string::npos)
      << overheads.out;
}

TEST_F(CliTest, CostPluginsAreAskedFirst) {
  RunResult plain = run({"export-workload", model("resnet50_light.onnx"), "-q"});
  RunResult plugged =
      run({"export-workload", model("resnet50_light.onnx"), "--cost-plugin", ONNX_PLACER_TEST_PLUGIN, "-q"});
  ASSERT_EQ(plugged.exit_code, 0) << plugged.err;
  json nodes = json::parse(plugged.out)["nodes"];
  for (const auto& node : nodes) {
    if (node["name"] == "/conv1/Conv") {
      // 3 input channels, and the default preset's 5 us per operator on an accelerator
      EXPECT_DOUBLE_EQ(node["fpgaLatency"].get<double>(), 3e-6 + 5e-6);
    }
  }
  EXPECT_NE(plain.out, plugged.out);
  RunResult not_plugin =
      run({"place", model("resnet50_light.onnx"), "--cost-plugin", ONNX_PLACER_NOT_A_PLUGIN});
  EXPECT_EQ(not_plugin.exit_code, 1);
  EXPECT_NE(not_plugin.err.find("not an onnx-placer cost plugin"), std::string::npos) << not_plugin.err;
}

// ONNX Runtime's memory statistics set the memory of the nodes they name (initializers_sizes; rows
// "<node name>_<hash>"); rows naming no operator, and zeros for nodes with weights, are warned about.
TEST_F(CliTest, MemoryStatisticsSetTheNodeMemory) {
  auto sizes = [](const std::string& workload) {
    std::map<std::string, double> out;
    const json parsed = json::parse(workload);
    for (const auto& node : parsed["nodes"])
      out[node["name"].get<std::string>()] = node["size"].get<double>();
    return out;
  };
  RunResult plain = run({"export-workload", model("resnet50_light.onnx"), "-q"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string csv =
      write("mem.csv",
            "#name,input_sizes,initializers_sizes,total_dynamic_sizes,total_temp_allocations\n"
            "/conv1/Conv_8398749086455267792,602112,5000000,777,888\n"
            "/nope/Nope_1,0,1,0,0\n");
  RunResult measured = run({"export-workload", model("resnet50_light.onnx"), "--cost-profile", csv});
  ASSERT_EQ(measured.exit_code, 0) << measured.err;
  const auto before = sizes(plain.out), after = sizes(measured.out);
  EXPECT_DOUBLE_EQ(after.at("/conv1/Conv"), 5e6);
  EXPECT_NE(before.at("/conv1/Conv"), 5e6);
  for (const auto& [name, size] : before) {
    if (name != "/conv1/Conv") {
      EXPECT_EQ(after.at(name), size) << name;
    }
  }
  EXPECT_NE(measured.err.find(csv + ": 1 memory statistics row(s) name no operator of the model"),
            std::string::npos)
      << measured.err;
  EXPECT_NE(measured.err.find("\"/nope/Nope_1\""), std::string::npos) << measured.err;

  // The solver sees it: 1 TB on one node fits on no 16 GB accelerator, and there is no CPU.
  const std::string huge =
      write("huge.csv",
            "#name,input_sizes,initializers_sizes,total_dynamic_sizes,total_temp_allocations\n"
            "/conv1/Conv,0,1000000000000,0,0\n");
  const std::string report = (work_ / "r.json").string();
  EXPECT_EQ(run({"place", model("resnet50_light.onnx"), "--cpus", "0", "-q"}).exit_code, 0);
  RunResult infeasible =
      run({"place", model("resnet50_light.onnx"), "--cpus", "0", "--cost-profile", huge, "--report", report});
  EXPECT_EQ(infeasible.exit_code, 3) << infeasible.err;
  EXPECT_FALSE(fs::exists(report));

  // A real ONNX Runtime 1.30 file: every operator row matches, but it writes initializers_sizes 0
  // (its weights are under input_sizes), so the model's weight bytes stay; the rows of the weight
  // producers folded into their readers match no operator.
  RunResult squeeze_plain = run({"export-workload", model("light_squeezenet.onnx"), "-q"});
  RunResult squeeze = run({"export-workload", model("light_squeezenet.onnx"), "--cost-profile",
                           dataPath("profiles/ort130_light_squeezenet_node_memory.csv").string()});
  ASSERT_EQ(squeeze.exit_code, 0) << squeeze.err;
  EXPECT_EQ(squeeze.out, squeeze_plain.out);
  EXPECT_NE(squeeze.err.find("39 memory statistics row(s) name no operator of the model"), std::string::npos)
      << squeeze.err;
  EXPECT_NE(squeeze.err.find("\"ConstantOfShape_"), std::string::npos) << squeeze.err;
  EXPECT_NE(squeeze.err.find("initializers_sizes is 0 for 26 operator(s) that read weights"),
            std::string::npos)
      << squeeze.err;
}

onnx::ModelProto parseModel(const char* text) {
  onnx::ModelProto proto;
  auto status = onnx::OnnxParser::Parse(proto, text);
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
  return proto;
}

TEST_F(CliTest, PlaceRejectsCyclesAndTensorsNobodyProduces) {
  onnx::ModelProto proto = parseModel(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2] x) => (float[2] y) {
      a = Relu(x)
      y = Add(a, x)
    })");
  proto.mutable_graph()->mutable_node(1)->set_input(1, "ghost");
  const std::string dangling = write("dangling.onnx", proto.SerializeAsString());
  proto.mutable_graph()->mutable_node(1)->set_input(1, "x");
  proto.mutable_graph()->mutable_node(0)->set_input(0, "y");  // Relu reads Add's output: a cycle
  const std::string cycle = write("cycle.onnx", proto.SerializeAsString());
  const std::set<std::string> inputs = workFiles();
  for (const auto& [file, what] :
       {std::pair{dangling, std::string("reads tensor 'ghost', which no node, initializer or "
                                        "graph input produces")},
        std::pair{cycle, std::string("the graph has a cycle through node ")}}) {
    RunResult r = run({"place", file, "-o", (work_ / "out.onnx").string(), "--stages-dir",
                       (work_ / "stages").string(), "--report", (work_ / "report.json").string()});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(file + ": "), std::string::npos) << "names the file: " << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
    EXPECT_EQ(workFiles(), inputs) << "nothing written for " << file;
  }
  RunResult r = run({"place", dangling, "-q"});
  EXPECT_NE(r.err.find("node 1 (Add)"), std::string::npos) << "names the node: " << r.err;
}

// A model whose two weights live in model/weights.bin (external data).
class ExternalData : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    model_dir_ = work_ / "model";
    fs::create_directories(model_dir_);
    onnx::ModelProto proto = parseModel(R"(
      <ir_version: 8, opset_import: ["" : 13]>
      g (float[1, 16] x) => (float[1, 16] y) {
        h = MatMul(x, w1)
        r = Relu(h)
        y = MatMul(r, w2)
      })");
    for (int i : {0, 1}) {
      onnx::TensorProto* w = proto.mutable_graph()->add_initializer();
      w->set_name("w" + std::to_string(i + 1));
      w->set_data_type(onnx::TensorProto::FLOAT);
      w->add_dims(16);
      w->add_dims(16);
      w->set_data_location(onnx::TensorProto::EXTERNAL);
      for (const auto& [key, value] : {std::pair<std::string, std::string>{"location", "weights.bin"},
                                       {"offset", std::to_string(1024 * i)},
                                       {"length", "1024"}}) {
        auto* entry = w->add_external_data();
        entry->set_key(key);
        entry->set_value(value);
      }
    }
    model_ = (model_dir_ / "m.onnx").string();
    spit(model_, proto.SerializeAsString());
    data_ = model_dir_ / "weights.bin";
    spit(data_, std::string(2048, '\x3c'));
  }

  // Each external-data location of the model at `path`, resolved from `dir`.
  static std::vector<fs::path> dataFiles(const fs::path& path, const fs::path& dir) {
    onnx::ModelProto proto;
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(proto.ParseFromIstream(&in)) << path;
    std::vector<fs::path> files;
    for (const auto& init : proto.graph().initializer()) {
      for (const auto& entry : init.external_data()) {
        if (entry.key() == "location") files.push_back(dir / entry.value());
      }
    }
    return files;
  }

  static std::string checkerError(const fs::path& path) {
    try {
      onnx::checker::check_model(path.string());  // resolves the data files from the model's directory
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }

  fs::path model_dir_, data_;
  std::string model_;
};

TEST_F(ExternalData, PlaceNeverWritesTheDataFileAndStagesLinkIt) {
  const std::string data_before = slurp(data_);
  const auto data_time = fs::last_write_time(data_);
  const fs::path out = model_dir_ / "placed.onnx", stages = work_ / "out" / "stages";
  fs::create_directories(work_ / "out");
  RunResult r = run({"place", model_, "--accelerators", "2", "--memory", "1500", "--cpus", "0", "-o",
                     out.string(), "--annotate", "metadata", "--stages-dir", stages.string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(data_), data_before);
  EXPECT_EQ(fs::last_write_time(data_), data_time);
  // Next to the model, the annotated model's locations resolve as they did.
  EXPECT_EQ(checkerError(out), "");
  EXPECT_EQ(dataFiles(out, out.parent_path()), (std::vector<fs::path>{data_, data_}));
  EXPECT_EQ(fs::hard_link_count(data_), 2u) << "one link, in the stage directory";
  // The stages' locations resolve from their own directory, where the data file is hard-linked.
  const json manifest = json::parse(slurp(stages / "pipeline.json"));
  ASSERT_EQ(manifest["stages"].size(), 2u) << "each 1 KB weight needs its own 1.5 KB accelerator";
  EXPECT_FALSE(manifest.contains("external_data_dir"));
  EXPECT_EQ(manifest["stage_data"], "reference");
  for (const auto& stage : manifest["stages"]) {
    EXPECT_EQ(stage["data_files"], json::array({"weights.bin"}));
    const fs::path file = stages / stage["file"].get<std::string>();
    EXPECT_EQ(checkerError(file), "") << file;
    for (const fs::path& data : dataFiles(file, stages)) EXPECT_TRUE(fs::equivalent(data, data_)) << data;
  }
  // A second run replaces the stage directory, links included; the data file is untouched.
  r = run({"place", model_, "--accelerators", "2", "--memory", "1500", "--cpus", "0", "--stages-dir",
           stages.string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(data_), data_before);
  EXPECT_EQ(fs::hard_link_count(data_), 2u);

  // Without the data file, place still answers (the loader takes sizes from the dims), but writes
  // no model that would reference a missing file.
  fs::remove(data_);
  const fs::path out2 = model_dir_ / "placed2.onnx";
  r = run({"place", model_, "--accelerators", "2", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"place", model_, "--accelerators", "2", "-o", out2.string(), "--stages-dir",
           (work_ / "stages2").string(), "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("tensor 'w1' keeps its data in " + data_.string() + ", which is not a readable file"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out2));
  EXPECT_FALSE(fs::exists(work_ / "stages2"));
  EXPECT_FALSE(fs::exists(data_)) << "nothing creates the data file";
}

// -o elsewhere than the model's directory: above it, the locations are rewritten to reach the data
// file; elsewhere, the data file is hard-linked beside it ("reference") or copied ("copy").
TEST_F(ExternalData, AnnotatedModelElsewhereReachesTheData) {
  const std::string data_before = slurp(data_);
  const fs::path above = work_ / "placed.onnx";
  RunResult r = run({"place", model_, "-o", above.string(), "--annotate", "metadata", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(checkerError(above), "");
  EXPECT_EQ(dataFiles(above, work_),
            (std::vector<fs::path>{work_ / "model/weights.bin", work_ / "model/weights.bin"}));
  EXPECT_EQ(fs::hard_link_count(data_), 1u);

  fs::create_directories(work_ / "elsewhere");
  const fs::path elsewhere = work_ / "elsewhere" / "placed.onnx";
  r = run({"place", model_, "-o", elsewhere.string(), "--annotate", "metadata", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(checkerError(elsewhere), "");
  EXPECT_TRUE(fs::equivalent(work_ / "elsewhere" / "weights.bin", data_));
  // Again: the link is already there.
  r = run({"place", model_, "-o", elsewhere.string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  // Copies: the annotated model's own data file, and each stage's with only its weight.
  const fs::path copied = work_ / "copy" / "placed.onnx", stages = work_ / "copy" / "stages";
  fs::create_directories(work_ / "copy");
  r = run({"place", model_, "--accelerators", "2", "--memory", "1500", "--cpus", "0", "-o", copied.string(),
           "--stages-dir", stages.string(), "--stage-data", "copy", "--annotate", "metadata", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(checkerError(copied), "");
  EXPECT_EQ(slurp(work_ / "copy" / "placed.onnx.data"), data_before);
  EXPECT_FALSE(fs::equivalent(work_ / "copy" / "placed.onnx.data", data_));
  const json manifest = json::parse(slurp(stages / "pipeline.json"));
  EXPECT_EQ(manifest["stage_data"], "copy");
  for (int k = 0; k < 2; ++k) {
    const std::string file = "stage" + std::to_string(k) + ".onnx";
    EXPECT_EQ(manifest["stages"][k]["data_files"], json::array({file + ".data"}));
    EXPECT_EQ(checkerError(stages / file), "");
    EXPECT_EQ(slurp(stages / (file + ".data")), std::string(1024, '\x3c'));
  }
  EXPECT_EQ(slurp(data_), data_before);

  // A file of another origin where a link would go is kept unless --force.
  fs::create_directories(work_ / "taken");
  spit(work_ / "taken" / "weights.bin", "mine");
  r = run({"place", model_, "-o", (work_ / "taken" / "placed.onnx").string(), "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("weights.bin beside"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(work_ / "taken" / "weights.bin"), "mine");
  EXPECT_FALSE(fs::exists(work_ / "taken" / "placed.onnx"));

  EXPECT_EQ(run({"place", model_, "--stage-data", "both", "-q"}).exit_code, 2);
}

// Outputs on another file system than the data cannot link it: refused with the reason and the
// alternative, and --stage-data copy works. (/dev/shm is a tmpfs on Debian; where it shares the work
// directory's file system, the link is made.)
TEST_F(ExternalData, LinkAcrossFileSystemsIsRefusedAndCopyWorks) {
  std::error_code ec;
  const fs::path shm = fs::path("/dev/shm") / ("onnx-placer-test-" + std::to_string(::getpid()));
  fs::create_directories(shm, ec);
  ASSERT_FALSE(ec) << "cannot create " << shm << ": " << ec.message();
  struct Remove {
    fs::path path;
    ~Remove() { fs::remove_all(path); }
  } remove{shm};
  struct stat shm_info {}, work_info {};
  ASSERT_EQ(::stat(shm.c_str(), &shm_info), 0);
  ASSERT_EQ(::stat(data_.c_str(), &work_info), 0);
  const fs::path out = shm / "placed.onnx";
  RunResult r = run({"place", model_, "-o", out.string(), "-q"});
  if (shm_info.st_dev != work_info.st_dev) {
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("it is on another file system"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--stage-data copy"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(shm)) << "nothing left behind";
  } else {
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  r = run({"place", model_, "-o", out.string(), "--stage-data", "copy", "--annotate", "metadata", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(checkerError(out), "");
  EXPECT_EQ(slurp(shm / "placed.onnx.data"), slurp(data_));
}

}  // namespace model_commands_test
}  // namespace placer::testing
