// Profile tables against ResNet-50 (tests/data/models/resnet50_light.onnx): our JSON by node name and
// by signature, units, precedence, unsupported nodes, ONNX Runtime traces and memory CSVs, merging,
// every error, and stacking in front of the roofline through annotate(). The fixtures in
// tests/data/profiles/ are hand-written with the model's real node names.
#include "cost_model/profile_cost_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/test_util.h"

namespace placer::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

const OnnxGraph& resnet() {
  static const OnnxGraph graph = [] {
    auto loaded = loadOnnx(dataPath("models/resnet50_light.onnx"));
    EXPECT_TRUE(loaded.hasValue()) << loaded.status().message();
    return loaded.hasValue() ? std::move(*loaded) : OnnxGraph{};
  }();
  return graph;
}

int nodeIndex(const OnnxGraph& graph, const std::string& name) {
  for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v) {
    if (graph.nodes[v].name == name) return v;
  }
  ADD_FAILURE() << "no node " << name;
  return 0;
}

std::filesystem::path profile(const std::string& name) {
  return dataPath("profiles/" + name);
}

ProfileCostModel load(const std::vector<std::string>& names) {
  std::vector<std::filesystem::path> files;
  for (const std::string& name : names)
    files.push_back(profile(name));
  auto model = loadProfile(files);
  EXPECT_TRUE(model.hasValue()) << model.status().message();
  return model.hasValue() ? std::move(*model) : ProfileCostModel{};
}

std::optional<NodeTimes> estimateFor(const ProfileCostModel& model, const std::string& node) {
  return model.estimate(resnet(), nodeIndex(resnet(), node), DeviceSpec{});
}

void expectTimes(const ProfileCostModel& model, const std::string& node, double accelerator, double cpu) {
  auto times = estimateFor(model, node);
  ASSERT_TRUE(times.has_value()) << node;
  EXPECT_DOUBLE_EQ(times->accelerator, accelerator) << node;
  EXPECT_DOUBLE_EQ(times->cpu, cpu) << node;
}

TEST(OpSignature, ShapesOfEveryInput) {
  const OnnxGraph& g = resnet();
  EXPECT_EQ(opSignature(g, nodeIndex(g, "/layer1/layer1.0/conv2/Conv")), "Conv(1x64x56x56;64x64x3x3;64)");
  EXPECT_EQ(opSignature(g, nodeIndex(g, "/relu/Relu")), "Relu(1x64x112x112)");
}

TEST(OpSignature, UnknownDimensionsAndOmittedInputs) {
  OnnxGraph g;
  g.tensors.resize(3);
  g.tensors[0].shape = Shape{-1, 3};  // tensor 1's shape is unknown
  g.tensors[2].shape = Shape{};
  OnnxNode& n = g.nodes.emplace_back();
  n.op_type = "Op";
  n.domain = "com.example";
  n.inputs = {0, -1, 1, 2};
  EXPECT_EQ(opSignature(g, 0), "com.example.Op(?x3;;?;scalar)");
}

TEST(ProfileCostModel, ByNodeName) {
  ProfileCostModel model = load({"own_ms.json"});
  expectTimes(model, "/conv1/Conv", 0.5e-3, 20e-3);
  EXPECT_FALSE(estimateFor(model, "/maxpool/MaxPool").has_value()) << "not in the profile";
}

TEST(ProfileCostModel, BySignature) {
  ProfileCostModel model = load({"own_ms.json"});
  expectTimes(model, "/layer1/layer1.0/conv2/Conv", 0.2e-3, 8e-3);
  expectTimes(model, "/layer1/layer1.2/conv2/Conv", 0.2e-3, 8e-3);
  EXPECT_FALSE(estimateFor(model, "/layer1/layer1.0/conv1/Conv").has_value()) << "a 1x1 conv";
}

TEST(ProfileCostModel, NodeNameWinsOverSignature) {
  ProfileCostModel model = load({"own_ms.json"});
  expectTimes(model, "/layer1/layer1.1/conv2/Conv", 0.3e-3, 9e-3);
  // Three named nodes (one of them also matching the signature) plus two more by signature.
  EXPECT_EQ(model.matchedNodes(resnet()), 5u);
}

TEST(ProfileCostModel, UnsupportedIsInfiniteOnTheAccelerator) {
  ProfileCostModel model = load({"own_ms.json"});
  expectTimes(model, "/relu/Relu", kInf, 0.25e-3);
}

TEST(ProfileCostModel, UnitsConvertToSeconds) {
  ProfileCostModel seconds = load({"own_s.json"});
  ProfileCostModel micro = load({"own_us.json"});
  ProfileCostModel milli = load({"own_ms.json"});
  for (const ProfileCostModel* model : {&seconds, &micro, &milli})
    expectTimes(*model, "/conv1/Conv", 0.5e-3, 20e-3);
}

TEST(ProfileCostModel, OrtTraceAveragesRunsAndSplitsProviders) {
  ProfileCostModel model = load({"ort_trace.json"});
  // Two CUDA runs of conv1 (100, 300 us) but no CPU run: only half the answer, so none.
  EXPECT_FALSE(estimateFor(model, "/conv1/Conv").has_value());
  // MaxPool: CPU 40, 60, 50 us -> 50 us; CUDA 8 us.
  expectTimes(model, "/maxpool/MaxPool", 8e-6, 50e-6);
  EXPECT_EQ(model.matchedNodes(resnet()), 1u);
}

TEST(ProfileCostModel, FilesMergePerDeviceAndLaterFilesWin) {
  // A CUDA trace and a CPU trace of the same model combine into full answers.
  ProfileCostModel traces = load({"ort_trace.json", "ort_trace_cpu.json"});
  expectTimes(traces, "/conv1/Conv", 200e-6, 5000e-6);
  // Our JSON's CPU time for MaxPool replaces the trace's; the trace's accelerator time stays.
  ProfileCostModel merged = load({"ort_trace.json", "partial_cpu.json"});
  expectTimes(merged, "/maxpool/MaxPool", 8e-6, 1.5e-3);
  // The trace comes last: its Relu CPU time replaces own_ms.json's, the +inf accelerator stays.
  ProfileCostModel last = load({"own_ms.json", "ort_trace.json"});
  expectTimes(last, "/relu/Relu", kInf, 12e-6);
  expectTimes(last, "/conv1/Conv", 200e-6, 20e-3);
}

TEST(ProfileCostModel, MemoryCsv) {
  ProfileCostModel model = load({"node_memory.csv"});
  auto conv = model.memoryStats("/conv1/Conv");
  ASSERT_TRUE(conv.has_value());
  EXPECT_EQ(conv->input_sizes, 602112.0);
  EXPECT_EQ(conv->initializers_sizes, 37632.0);
  EXPECT_EQ(conv->total_dynamic_sizes, 0.0);
  EXPECT_EQ(conv->total_temp_allocations, 1024.0);
  EXPECT_EQ(conv->source, profile("node_memory.csv").string());
  auto pool = model.memoryStats("/maxpool/MaxPool");
  ASSERT_TRUE(pool.has_value());
  EXPECT_EQ(pool->total_dynamic_sizes, 802816.0);
  EXPECT_FALSE(model.memoryStats("/fc/Gemm").has_value());
  EXPECT_EQ(model.matchedNodes(resnet()), 0u) << "memory alone gives no times";
  // Only initializers_sizes is a node's resident memory; the other columns are transient.
  const auto weights = model.weightMemory();
  ASSERT_EQ(weights.size(), 3u);
  EXPECT_EQ(weights.at("/conv1/Conv").bytes, 37632.0);
  EXPECT_EQ(weights.at("/maxpool/MaxPool").bytes, 0.0);
}

TEST(ProfileCostModel, NoFilesAnswersNothing) {
  ProfileCostModel model = load({});
  EXPECT_EQ(model.matchedNodes(resnet()), 0u);
}

TEST(ProfileCostModel, StacksInFrontOfTheRoofline) {
  const OnnxGraph& g = resnet();
  DeviceSpec spec = *devicePreset(kDefaultDevicePreset);
  ProfileCostModel profile = load({"own_ms.json"});
  RooflineCostModel roofline;
  auto annotated = annotate(g, spec, {&profile, &roofline});
  ASSERT_TRUE(annotated.hasValue()) << annotated.status().message();
  const OpGraph& p = annotated->problem.graph;
  ASSERT_EQ(boost::num_vertices(p), g.nodes.size());
  std::size_t profiled = 0;
  for (int v = 0; v < static_cast<int>(g.nodes.size()); ++v) {
    auto expected = profile.estimate(g, v, spec);
    if (expected) {
      ++profiled;
    } else {
      expected = roofline.estimate(g, v, spec);
    }
    ASSERT_TRUE(expected.has_value());
    EXPECT_EQ(p[v].p_acc, expected->accelerator) << g.nodes[v].name;
    EXPECT_EQ(p[v].p_cpu, expected->cpu) << g.nodes[v].name;
  }
  EXPECT_EQ(profiled, 5u);
  const int conv1 = nodeIndex(g, "/conv1/Conv");
  EXPECT_DOUBLE_EQ(p[conv1].p_cpu, 20e-3);
  EXPECT_NE(p[nodeIndex(g, "/maxpool/MaxPool")].p_cpu, 0);
  EXPECT_EQ(p[nodeIndex(g, "/relu/Relu")].p_acc, kInf);
}

// The error for one fixture in errors/: its code, and a message naming the file and the place.
void expectError(const std::string& fixture, const std::string& place, const std::string& what) {
  std::filesystem::path path = profile("errors/" + fixture);
  auto model = loadProfile({profile("own_ms.json"), path});
  ASSERT_FALSE(model.hasValue()) << fixture;
  EXPECT_EQ(model.status().code(), StatusCode::InvalidInput) << fixture;
  const std::string& message = model.status().message();
  EXPECT_TRUE(message.starts_with(path.string() + place)) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
}

TEST(ProfileErrors, OurJson) {
  expectError("malformed.json", ":3:", "malformed JSON");
  expectError("bad_unit.json", ": unit: ", "unknown unit \"min\"");
  expectError("missing_unit.json", ": unit: ", "missing field");
  expectError("bad_version.json", ": version: ", "unsupported version 2");
  expectError("negative_time.json", ": nodes[\"/conv1/Conv\"].cpu: ", "negative time -1");
  expectError("time_not_number.json", ": nodes[\"/relu/Relu\"].cpu: ", "expected a number");
  expectError("unknown_field.json", ": op_signatures[\"Relu(1x64x112x112)\"].acelerator: ", "unknown field");
  expectError("duplicate_node.json", ": nodes[\"/conv1/Conv\"]: ", "duplicate field");
  expectError("unsupported_with_time.json",
              ": nodes[\"/relu/Relu\"]: ", "accelerator time given for an unsupported node");
  expectError("empty_entry.json", ": nodes[\"/relu/Relu\"]: ", "empty entry");
  expectError("object_without_version.json", ": ", "needs \"version\"");
  expectError("not_a_profile.txt", ": ", "not a profile");
}

TEST(ProfileErrors, OrtTrace) {
  expectError("trace_negative_dur.json", ": [1].dur: ", "negative time -3");
  expectError("trace_no_provider.json", ": [0].args.provider: ", "missing field");
  expectError("trace_not_object.json", ": [1]: ", "expected an event object");
}

TEST(ProfileErrors, MemoryCsv) {
  expectError("csv_wrong_columns.csv", ":3: ", "expected 5 columns, found 4");
  expectError("csv_bad_number.csv", ":2: total_dynamic_sizes: ", "expected a byte count");
  expectError("csv_bad_header.csv", ":1: ", "expected the header");
}

TEST(ProfileErrors, UnreadableFile) {
  auto model = loadProfile({profile("no_such_profile.json")});
  ASSERT_FALSE(model.hasValue());
  EXPECT_EQ(model.status().code(), StatusCode::IoError);
  EXPECT_NE(model.status().message().find("no_such_profile.json"), std::string::npos);
}

}  // namespace
}  // namespace placer::testing
