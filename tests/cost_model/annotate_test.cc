// From a loaded ONNX model to the placement problem: roofline totals against published figures,
// weights held once, colocation of shared weights, transfers per tensor, and a full DP placement.
#include "cost_model/cost_model.h"

#include <gtest/gtest.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/evaluate.h"
#include "cost_model/cost_sources.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace annotate_test {

OnnxGraph load(const std::string& model) {
  auto graph = loadOnnx(dataPath("models/" + model));
  EXPECT_TRUE(graph.hasValue()) << graph.status().message();
  return graph.hasValue() ? std::move(*graph) : OnnxGraph{};
}

double totalMacs(const OnnxGraph& graph) {
  double macs = 0;
  for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v)
    macs += estimateWork(shapeInfo(graph, v)).macs;
  return macs;
}

TEST(Annotate, ResNet50IsFourPointOneGigaMacs) {
  // The published figure for ResNet-50 at 224x224: about 4.1 G multiply-accumulates per image.
  for (const char* model : {"resnet50_light.onnx", "light_resnet50.onnx"}) {
    EXPECT_NEAR(totalMacs(load(model)) / 1e9, 4.1, 0.05 * 4.1) << model;
  }
}

// ONNX Runtime gives graph outputs buffers of their own: the LM head's Reshape to the logits copies
// them (measured: 1.26 ms at seq 128, as long as an Add), the attention's Reshapes are views.
TEST(Annotate, OnlyViewsWritingGraphOutputsMoveBytes) {
  LoadOptions options;
  options.dims["seq"] = 4;
  auto graph = loadOnnx(dataPath("models/gpt_tied_light.onnx"), options);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  int views = 0, copies = 0;
  for (int v = 0; v < static_cast<int>(graph->nodes.size()); ++v) {
    if (graph->nodes[v].op_type != "Reshape") continue;
    const OpWork work = estimateWork(shapeInfo(*graph, v));
    const bool writes_output = graph->tensors[graph->nodes[v].outputs[0]].is_graph_output;
    if (writes_output) {
      ++copies;
      EXPECT_DOUBLE_EQ(work.bytes_written, 4.0 * 50257 * 4) << graph->nodes[v].name;
      EXPECT_GE(work.bytes_read, 4.0 * 50257 * 4) << graph->nodes[v].name;
    } else {
      ++views;
      EXPECT_DOUBLE_EQ(work.bytes_read + work.bytes_written, 0) << graph->nodes[v].name;
    }
  }
  EXPECT_EQ(copies, 1);
  EXPECT_GT(views, 40);
}

TEST(Annotate, ProblemMirrorsTheModel) {
  OnnxGraph graph = load("resnet50_light.onnx");
  DeviceSpec spec = *devicePreset(kDefaultDevicePreset);
  RooflineCostModel roofline;
  auto annotated = annotate(graph, spec, {&roofline});
  ASSERT_TRUE(annotated.hasValue()) << annotated.status().message();
  const Problem& p = annotated->problem;
  ASSERT_EQ(boost::num_vertices(p.graph), graph.nodes.size());
  EXPECT_EQ(p.devices.accelerators, spec.accelerators.count);
  double memory = 0, weights = 0;
  for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v) {
    memory += p.graph[v].memory;
    EXPECT_GE(p.graph[v].p_acc, 0) << p.graph[v].name;
    if (p.graph[v].op_type == "Conv") {
      EXPECT_LT(p.graph[v].p_acc, p.graph[v].p_cpu) << p.graph[v].name << ": accelerators are faster";
    }
    if (p.graph[v].op_type == "Flatten") {
      EXPECT_EQ(p.graph[v].p_acc, spec.accelerators.op_overhead) << "views move no data: the dispatch only";
    }
  }
  for (const TensorInfo& t : graph.tensors) {
    if (t.is_weight && !t.consumers.empty()) weights += *t.bytes();
  }
  EXPECT_DOUBLE_EQ(memory, weights);
  EXPECT_DOUBLE_EQ(totalMemory(p), weights) << "every weight counted once";
  // One net per produced tensor, costing the link time of its bytes.
  for (const Net& net : p.nets) {
    const OnnxNode& producer = graph.nodes[net.source];
    bool matched = false;
    for (int t : producer.outputs) {
      if (t >= 0 && std::abs(spec.acceleratorBoundarySeconds(*graph.tensors[t].bytes()) - net.cost) < 1e-15)
        matched = true;
    }
    EXPECT_TRUE(matched) << producer.name;
  }
}

// A weight two operators read is a SharedWeight: replicated by default (each device holding a reader
// holds it once), its readers colocated with --shared-weights colocate when it is at least 1 MiB.
TEST(Annotate, SharedWeightsAreReplicatedOrTheirReadersColocated) {
  onnx::ModelProto model;
  ASSERT_TRUE(onnx::OnnxParser::Parse(model, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2, 512] x) => (float[2, 512] y) {
      shape = Constant <value = int64[2] {512, 512}> ()
      w = ConstantOfShape <value = float[1] {0.5}> (shape)
      h = MatMul(x, w)
      r = Relu(h)
      y = MatMul(r, w)
    })")
                  .IsOK());
  auto path = std::filesystem::temp_directory_path() / "annotate-test-shared.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    model.SerializeToOstream(&out);
  }
  auto graph = loadOnnx(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  DeviceSpec spec = *devicePreset(kDefaultDevicePreset);
  RooflineCostModel roofline;
  auto replicated = annotate(*graph, spec, {&roofline});  // auto: replicate
  ASSERT_TRUE(replicated.hasValue());
  {
    const Problem& p = replicated->problem;
    for (Vertex v = 0; v < 3; ++v) {
      EXPECT_FALSE(p.graph[v].colocation.has_value()) << v;
      EXPECT_DOUBLE_EQ(p.graph[v].memory, 0) << v << ": the weight is shared, not its own";
    }
    ASSERT_EQ(p.weights.size(), 1u);
    EXPECT_EQ(p.weights[0].name, "w");
    EXPECT_DOUBLE_EQ(p.weights[0].bytes, 512 * 512 * 4);
    EXPECT_EQ(p.weights[0].readers, (std::vector<Vertex>{0, 2}));
    EXPECT_DOUBLE_EQ(deviceMemory(p, {0, 1, 1})[0], 512 * 512 * 4);
    EXPECT_DOUBLE_EQ(deviceMemory(p, {0, 1, 1})[1], 512 * 512 * 4) << "a copy on each";
    EXPECT_DOUBLE_EQ(deviceMemory(p, {0, 0, 0})[0], 512 * 512 * 4) << "held once";
  }

  AnnotateOptions colocate;
  colocate.shared_weights = SharedWeightMode::Colocate;  // w is 1 MiB: its readers share a device
  auto colocated = annotate(*graph, spec, {&roofline}, colocate);
  ASSERT_TRUE(colocated.hasValue());
  const OpGraph& g = colocated->problem.graph;
  ASSERT_TRUE(g[0].colocation.has_value());
  EXPECT_EQ(g[0].colocation, g[2].colocation);
  EXPECT_FALSE(g[1].colocation.has_value());
  EXPECT_DOUBLE_EQ(totalMemory(colocated->problem), 512 * 512 * 4);

  colocate.colocate_weight_bytes = 2 << 20;  // w is below this: still replicated
  auto small = annotate(*graph, spec, {&roofline}, colocate);
  ASSERT_TRUE(small.hasValue());
  EXPECT_FALSE(small->problem.graph[0].colocation.has_value());
  EXPECT_EQ(small->problem.weights.size(), 1u);
}

// ONNX Runtime's memory statistics name nodes "<name>_<hash>"; initializers_sizes replaces the weight
// bytes of the nodes they name, except a 0 for a node that reads weights.
TEST(Annotate, MemoryOverridesReplaceTheWeightBytesOfNamedNodes) {
  onnx::ModelProto model;
  ASSERT_TRUE(onnx::OnnxParser::Parse(model, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2, 4] x) => (float[2, 4] y) {
      w1 = Constant <value = float[4, 4] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}> ()
      w2 = Constant <value = float[4, 4] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}> ()
      h = MatMul(x, w1)
      r = Relu(h)
      y = MatMul(r, w2)
    })")
                  .IsOK());
  model.mutable_graph()->mutable_node(2)->set_name("first");
  model.mutable_graph()->mutable_node(3)->set_name("act_1");
  model.mutable_graph()->mutable_node(4)->set_name("second");
  auto path = std::filesystem::temp_directory_path() / "annotate-test-memory.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    model.SerializeToOstream(&out);
  }
  auto graph = loadOnnx(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  ASSERT_EQ(graph->nodes.size(), 3u);
  DeviceSpec spec = *devicePreset(kDefaultDevicePreset);
  RooflineCostModel roofline;
  AnnotateOptions options;
  options.memory_overrides = {{"first_8398749086455267792", {1000, "mem.csv"}},  // ONNX Runtime's form
                              {"act_1", {300, "mem.csv"}},                       // a plain name
                              {"second_12", {0, "mem.csv"}},                     // 0: weights kept
                              {"Conv_77", {5, "other.csv"}},                     // no such node
                              {"ghost", {5, "other.csv"}}};
  auto annotated = annotate(*graph, spec, {&roofline}, options);
  ASSERT_TRUE(annotated.hasValue()) << annotated.status().message();
  const OpGraph& g = annotated->problem.graph;
  EXPECT_DOUBLE_EQ(g[0].memory, 1000);
  EXPECT_DOUBLE_EQ(g[1].memory, 300);
  EXPECT_DOUBLE_EQ(g[2].memory, 64) << "the model's w2";
  ASSERT_EQ(annotated->warnings.size(), 2u);
  EXPECT_EQ(annotated->warnings[0],
            "other.csv: 2 memory statistics row(s) name no operator of the model (weight producers folded "
            "into their readers, or nodes made by ONNX Runtime's optimizer) and are ignored: \"Conv_77\", "
            "\"ghost\"");
  EXPECT_EQ(annotated->warnings[1],
            "mem.csv: initializers_sizes is 0 for 1 operator(s) that read weights (\"second\"); ONNX Runtime "
            "writes 0 there when it counts weights under input_sizes, so the model's weight bytes are kept");
  // Without overrides, the model's weights.
  auto plain = annotate(*graph, spec, {&roofline});
  ASSERT_TRUE(plain.hasValue());
  EXPECT_DOUBLE_EQ(plain->problem.graph[0].memory, 64);
  EXPECT_DOUBLE_EQ(plain->problem.graph[1].memory, 0);
  EXPECT_TRUE(plain->warnings.empty());
}

// The overhead terms (cost_model/README.md, "Overheads"): op_overhead adds to every operator's time
// on its kind of device, and a tensor crossing a stage boundary costs an accelerator the link transfer
// plus its boundary_overhead, a CPU core its boundary_overhead plus bytes / boundary_bandwidth. A
// pipeline of two CPU cores then pays the cut on both sides.
TEST(Annotate, OverheadsAddToOperatorTimesAndStageBoundaries) {
  onnx::ModelProto model;
  ASSERT_TRUE(onnx::OnnxParser::Parse(model, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1, 1024] x) => (float[1, 1024] y) {
      a = Relu(x)
      y = Relu(a)
    })")
                  .IsOK());
  auto path = std::filesystem::temp_directory_path() / "annotate-test-overheads.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    model.SerializeToOstream(&out);
  }
  auto graph = loadOnnx(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  DeviceSpec spec;
  spec.accelerators = {1, 1e9, 1e12, 1e11};
  spec.cpus = {2, 1e10, 1e10};
  spec.link = {1e10, 1e-5};
  RooflineCostModel roofline;
  auto plain = annotate(*graph, spec, {&roofline});
  ASSERT_TRUE(plain.hasValue());
  spec.accelerators.op_overhead = 5e-6;
  spec.accelerators.boundary_overhead = 3e-5;
  spec.cpus.op_overhead = 2e-6;
  spec.cpus.boundary_overhead = 2e-5;
  spec.cpus.boundary_bandwidth = 4e9;
  auto with = annotate(*graph, spec, {&roofline});
  ASSERT_TRUE(with.hasValue());
  const OpGraph& g0 = plain->problem.graph;
  const OpGraph& g1 = with->problem.graph;
  for (Vertex v = 0; v < 2; ++v) {
    EXPECT_DOUBLE_EQ(g1[v].p_acc, g0[v].p_acc + 5e-6);
    EXPECT_DOUBLE_EQ(g1[v].p_cpu, g0[v].p_cpu + 2e-6);
  }
  ASSERT_EQ(with->problem.nets.size(), 1u);  // a: 4096 bytes from the first Relu to the second
  const Net& net = with->problem.nets[0];
  EXPECT_DOUBLE_EQ(net.cost, 1e-5 + 4096 / 1e10 + 3e-5);
  EXPECT_DOUBLE_EQ(net.cpu_cost, 2e-5 + 4096 / 4e9);
  EXPECT_DOUBLE_EQ(plain->problem.nets[0].cost, 1e-5 + 4096 / 1e10) << "the paper's c_u without overheads";
  EXPECT_EQ(plain->problem.nets[0].cpu_cost, 0);

  // Devices 1 and 2 are the CPU cores: each pays its compute and the cut.
  const Evaluation eval = evaluateThroughput(with->problem, {1, 2});
  EXPECT_DOUBLE_EQ(eval.devices[1].load, g1[0].p_cpu + net.cpu_cost);
  EXPECT_DOUBLE_EQ(eval.devices[2].load, g1[1].p_cpu + net.cpu_cost);
  EXPECT_DOUBLE_EQ(eval.devices[1].comm_out, net.cpu_cost);
  EXPECT_DOUBLE_EQ(eval.devices[2].comm_in, net.cpu_cost);
  // Accelerator then CPU core: the accelerator pays the link and its overhead, the core its share.
  const Evaluation mixed = evaluateThroughput(with->problem, {0, 1});
  EXPECT_DOUBLE_EQ(mixed.devices[0].load, g1[0].p_acc + net.cost);
  EXPECT_DOUBLE_EQ(mixed.devices[1].load, g1[1].p_cpu + net.cpu_cost);
}

TEST(Annotate, EveryBundledModelPlacesOnEveryDeviceCount) {
  RooflineCostModel roofline;
  for (const char* model : {"resnet50_light.onnx", "bert_base_l3_light.onnx", "mobilenet_v2_light.onnx",
                            "light_squeezenet.onnx", "vgg16_light.onnx"}) {
    OnnxGraph graph = load(model);
    for (int accelerators : {2, 3, 6}) {
      DeviceSpec spec = *devicePreset(kDefaultDevicePreset);
      spec.accelerators.count = accelerators;
      auto annotated = annotate(graph, spec, {&roofline});
      ASSERT_TRUE(annotated.hasValue()) << model;
      auto outcome = runPipeline(annotated->problem, pipelineFor("dp"));
      ASSERT_TRUE(outcome.hasValue()) << model << ": " << outcome.status().message();
      EXPECT_TRUE(verify(outcome->problem, outcome->solve.placement).isOk()) << model;
      EXPECT_EQ(outcome->solve.status, SolveStatus::Optimal) << model;
    }
  }
}

// The mixed preset with every device of `kind`.
DeviceSpec oneKindOf(const DeviceSpec& mixed, const std::string& kind) {
  nlohmann::ordered_json json = deviceSpecToJson(mixed);
  for (auto& device : json["devices"]) device["kind"] = kind;
  auto spec = parseDeviceSpec(json.dump(), "one-kind.json");
  EXPECT_TRUE(spec) << spec.status().message();
  return *spec;
}

// On a mixed machine each node's time on each kind is that kind's roofline time: the same as on a
// machine of that kind alone. The solvers see the used kinds in the order of "kinds" (a100, v100).
TEST(Annotate, EachKindOfAMixedMachineHasItsOwnTimes) {
  RooflineCostModel roofline;
  const OnnxGraph graph = load("resnet50_light.onnx");
  const DeviceSpec mixed = *devicePreset("mixed-2xa100-2xv100");
  auto annotated = annotate(graph, mixed, {&roofline});
  ASSERT_TRUE(annotated) << annotated.status().message();
  auto a100 = annotate(graph, oneKindOf(mixed, "a100"), {&roofline});
  auto v100 = annotate(graph, oneKindOf(mixed, "v100"), {&roofline});
  ASSERT_TRUE(a100 && v100);
  const Problem& p = annotated->problem;
  ASSERT_TRUE(p.devices.mixed());
  EXPECT_EQ(p.devices.kinds, (std::vector<AcceleratorKind>{{"a100", 2, 42949672960.0}, {"v100", 2, 17179869184.0}}));
  int slower = 0;
  for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v) {
    ASSERT_EQ(p.graph[v].p_kinds.size(), 1u);
    EXPECT_EQ(p.graph[v].p_acc, a100->problem.graph[v].p_acc);
    EXPECT_EQ(p.graph[v].accTime(1), v100->problem.graph[v].p_acc);
    slower += p.graph[v].accTime(1) > p.graph[v].p_acc;
  }
  EXPECT_GT(slower, 100);  // of 122 operators, nearly all run slower on the V100
  EXPECT_TRUE(checkKinds(p).isOk());
}

// An estimating cost model in front of the roofline (a plugin's, say) is asked for every kind with
// that kind's figures: the kinds' times are its answers plus each kind's operator overhead.
TEST(Annotate, AnEstimatingModelIsAskedForEveryKind) {
  struct ByPeak : CostModel {
    std::string_view name() const override { return "by-peak"; }
    TimeEstimate estimate(const OnnxGraph&, int node, const DeviceSpec& devices) const override {
      return {(node + 1) * 1e9 / devices.accelerators.peak_flops, std::nullopt};
    }
  } by_peak;
  RooflineCostModel roofline;
  const OnnxGraph graph = load("resnet50_light.onnx");
  const DeviceSpec mixed = *devicePreset("mixed-2xa100-2xv100");
  auto annotated = annotate(graph, mixed, {&by_peak, &roofline});
  ASSERT_TRUE(annotated) << annotated.status().message();
  const AcceleratorSpec v100 = mixed.kindFigures(1);
  for (int v : {0, 10, 60}) {
    const OpNode& node = annotated->problem.graph[v];
    EXPECT_DOUBLE_EQ(node.p_acc, (v + 1) * 1e9 / 1.95e13 + mixed.accelerators.op_overhead) << v;
    EXPECT_DOUBLE_EQ(node.accTime(1), (v + 1) * 1e9 / v100.peak_flops + v100.op_overhead) << v;
  }
}

// A time measured on the first kind (a profile) is carried to the other kinds in proportion to
// their roofline estimates.
TEST(Annotate, AProfiledTimeIsScaledToTheOtherKinds) {
  struct Measured : CostModel {
    std::string_view name() const override { return "measured"; }
    TimeEstimate estimate(const OnnxGraph&, int, const DeviceSpec&) const override { return {1e-3, std::nullopt}; }
    bool includesOperatorOverhead() const override { return true; }
  } measured;
  RooflineCostModel roofline;
  const OnnxGraph graph = load("resnet50_light.onnx");
  const DeviceSpec mixed = *devicePreset("mixed-2xa100-2xv100");
  auto annotated = annotate(graph, mixed, {&measured, &roofline});
  ASSERT_TRUE(annotated) << annotated.status().message();
  const DeviceSpec v100 = oneKindOf(mixed, "v100");
  for (int v : {0, 10, 60}) {
    const OpNode& node = annotated->problem.graph[v];
    EXPECT_EQ(node.p_acc, 1e-3);
    const double fast = *roofline.estimate(graph, v, mixed).accelerator + mixed.accelerators.op_overhead;
    const double slow = *roofline.estimate(graph, v, v100).accelerator + v100.accelerators.op_overhead;
    EXPECT_DOUBLE_EQ(node.accTime(1), 1e-3 * (slow / fast)) << v;
  }
}

// A profile recorded on a further kind (--cost-profile v100=FILE) gives that kind its measured times;
// the operators it does not name keep the times carried over from the first kind, and the first
// kind's times do not change.
TEST(Annotate, AProfileOfAKindGivesThatKindItsTimes) {
  const OnnxGraph graph = load("resnet50_light.onnx");
  const DeviceSpec mixed = *devicePreset("mixed-2xa100-2xv100");
  auto base = annotateModel(graph, mixed, CostSources{});
  ASSERT_TRUE(base) << base.status().message();
  const Problem& q = base->problem;
  const std::vector<int> named{3, 17};
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("kind_profile_" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"version": 1, "unit": "ms", "nodes": {")" << graph.nodes[named[0]].name
                      << R"(": {"accelerator": 2.5}, ")" << graph.nodes[named[1]].name
                      << R"(": {"accelerator": 0.75}}})";
  CostSources sources;
  sources.kind_profiles = {{file}};
  auto measured = annotateModel(graph, mixed, sources);
  sources.kind_profiles = {{file}, {file}};
  auto too_many = annotateModel(graph, mixed, sources);
  std::filesystem::remove(file);
  ASSERT_TRUE(measured) << measured.status().message();
  const Problem& p = measured->problem;
  EXPECT_DOUBLE_EQ(p.graph[named[0]].accTime(1), 2.5e-3);
  EXPECT_DOUBLE_EQ(p.graph[named[1]].accTime(1), 0.75e-3);
  for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v) {
    EXPECT_EQ(p.graph[v].p_acc, q.graph[v].p_acc) << v;
    if (v != 3 && v != 17) {
      EXPECT_EQ(p.graph[v].accTime(1), q.graph[v].accTime(1)) << v;
    }
  }
  ASSERT_FALSE(measured->notes.empty());
  EXPECT_NE(measured->notes.front().find("cost profile (v100): 2 of " + std::to_string(graph.nodes.size()) +
                                         " operators matched"),
            std::string::npos)
      << measured->notes.front();
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.status().message().find("profiles for 3 accelerator kinds, but the machine has 2"),
            std::string::npos);
}

}  // namespace annotate_test
}  // namespace placer::testing
