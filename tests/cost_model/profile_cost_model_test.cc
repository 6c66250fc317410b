// Profile tables against ResNet-50 (tests/data/models/resnet50_light.onnx): our JSON by node name and
// by signature, units, precedence, unsupported nodes, ONNX Runtime traces and memory CSVs, merging,
// every error, and stacking in front of the roofline through annotate(). The fixtures in
// tests/data/profiles/ are hand-written with the model's real node names.
#include "cost_model/profile_cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "cost_model/cost_sources.h"
#include "passes/pass_manager.h"
#include "core/evaluate.h"

#include "tests/test_util.h"

namespace placer::testing {
namespace profile_cost_model_test {

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

TimeEstimate estimateFor(const ProfileCostModel& model, const std::string& node) {
  return model.estimate(resnet(), nodeIndex(resnet(), node), DeviceSpec{});
}

void expectTimes(const ProfileCostModel& model, const std::string& node, double accelerator, double cpu) {
  const TimeEstimate times = estimateFor(model, node);
  ASSERT_TRUE(times.accelerator && times.cpu) << node;
  EXPECT_DOUBLE_EQ(*times.accelerator, accelerator) << node;
  EXPECT_DOUBLE_EQ(*times.cpu, cpu) << node;
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
  EXPECT_TRUE(estimateFor(model, "/maxpool/MaxPool").empty()) << "not in the profile";
}

TEST(ProfileCostModel, BySignature) {
  ProfileCostModel model = load({"own_ms.json"});
  expectTimes(model, "/layer1/layer1.0/conv2/Conv", 0.2e-3, 8e-3);
  expectTimes(model, "/layer1/layer1.2/conv2/Conv", 0.2e-3, 8e-3);
  EXPECT_TRUE(estimateFor(model, "/layer1/layer1.0/conv1/Conv").empty()) << "a 1x1 conv";
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

TEST(ProfileCostModel, OrtTraceTakesTheMedianRunAndSplitsProviders) {
  ProfileCostModel model = load({"ort_trace.json"});
  // Two CUDA runs of conv1 (100, 300 us) and no CPU run: an accelerator time only.
  const TimeEstimate conv = estimateFor(model, "/conv1/Conv");
  ASSERT_TRUE(conv.accelerator.has_value());
  EXPECT_DOUBLE_EQ(*conv.accelerator, 200e-6);
  EXPECT_FALSE(conv.cpu.has_value());
  // MaxPool: CPU 40, 60, 50 us -> 50 us; CUDA 8 us.
  expectTimes(model, "/maxpool/MaxPool", 8e-6, 50e-6);
  EXPECT_EQ(model.matchedNodes(resnet()), 3u) << "conv1, maxpool and relu";
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
    const TimeEstimate measured = profile.estimate(g, v, spec), estimated = roofline.estimate(g, v, spec);
    if (!measured.empty()) ++profiled;
    // Per kind of device: the profile's time where it has one, the roofline's (with the dispatch
    // overhead an estimate lacks) otherwise.
    const double acc =
        measured.accelerator ? *measured.accelerator : *estimated.accelerator + spec.accelerators.op_overhead;
    const double cpu = measured.cpu ? *measured.cpu : *estimated.cpu + spec.cpus.op_overhead;
    EXPECT_DOUBLE_EQ(p[v].p_acc, acc) << g.nodes[v].name;
    EXPECT_DOUBLE_EQ(p[v].p_cpu, cpu) << g.nodes[v].name;
  }
  EXPECT_EQ(profiled, 5u);
  const int conv1 = nodeIndex(g, "/conv1/Conv");
  EXPECT_DOUBLE_EQ(p[conv1].p_cpu, 20e-3);
  EXPECT_NE(p[nodeIndex(g, "/maxpool/MaxPool")].p_cpu, 0);
  EXPECT_EQ(p[nodeIndex(g, "/relu/Relu")].p_acc, kInf);
}

// A CPU trace of light_squeezenet recorded with ONNX Runtime 1.30 at graph optimisation level 'all'
// (3 runs, kernel events only): its Conv+Relu kernels are renamed `<output>_nchwc`, and it has a
// ReorderOutput kernel of its own.
constexpr const char* kOptimizedTrace = "ort130_light_squeezenet_cpu_optimized.json";

const OnnxGraph& squeezenet() {
  static const OnnxGraph graph = [] {
    auto loaded = loadOnnx(dataPath("models/light_squeezenet.onnx"));
    EXPECT_TRUE(loaded.hasValue()) << loaded.status().message();
    return loaded.hasValue() ? std::move(*loaded) : OnnxGraph{};
  }();
  return graph;
}

// The trace's kernels and their median durations in seconds, read here without the library.
std::map<std::string, double> kernelMedians(const std::string& fixture) {
  std::ifstream in(profile(fixture));
  const nlohmann::json events = nlohmann::json::parse(in);
  std::map<std::string, std::vector<double>> runs;
  for (const auto& e : events) {
    const std::string name = e["name"];
    runs[name.substr(0, name.size() - std::string("_kernel_time").size())].push_back(e["dur"].get<double>());
  }
  std::map<std::string, double> out;
  for (auto& [name, durations] : runs) {
    std::sort(durations.begin(), durations.end());
    const std::size_t n = durations.size();
    out[name] = (n % 2 ? durations[n / 2] : (durations[n / 2 - 1] + durations[n / 2]) / 2) * 1e-6;
  }
  return out;
}

// No accelerators and two cores, with an operator overhead that profiled times must not take (they
// were measured in the runtime): the times are the trace's alone.
DeviceSpec twoCores() {
  DeviceSpec spec;
  spec.name = "two cores";
  spec.cpus = {2, 7.2e10, 2e10};
  spec.cpus.op_overhead = 3e-6;
  return spec;
}

TEST(ProfileCostModel, OptimizedCpuTraceMatchesRenamedAndFusedKernels) {
  const OnnxGraph& g = squeezenet();
  ProfileCostModel trace = load({kOptimizedTrace});
  ProfileCostModel::Match match;
  const ProfileCostModel resolved = trace.resolvedFor(g, twoCores(), match);
  EXPECT_EQ(match.exact, 10);
  EXPECT_EQ(match.renamed, 29) << "Conv kernels named after their Relu's output, with _nchwc";
  EXPECT_EQ(match.fused, 27) << "the Relus (and the Conv before a renamed Relu) folded into them";
  EXPECT_EQ(match.unmatched_entries, 1);
  ASSERT_EQ(match.unmatched_names.size(), 1u);
  EXPECT_EQ(match.unmatched_names.front(), "ReorderOutput");
  const std::map<std::string, double> medians = kernelMedians(kOptimizedTrace);
  EXPECT_DOUBLE_EQ(match.unmatched_cpu_seconds, medians.at("ReorderOutput"));
  EXPECT_EQ(resolved.matchedNodes(g), g.nodes.size());
  EXPECT_EQ(trace.matchedNodes(g), 10u) << "by name alone";
}

// A transformer's optimised CPU trace (bert_base_l3_light, ONNX Runtime 1.30, level 'all', 3 runs):
// MatMul+Add kernels named `<MatMul>/MatMulAddFusion`, FusedMatMul with its Transposes and scale,
// and kernels that name nothing of the graph (SkipLayerNormalization_token_N for Add+LayerNorm,
// Gelu for Div/Erf/Add/Mul/Mul, inserted gemm reshapes), which execution order places.
TEST(ProfileCostModel, OptimizedTransformerTraceIsPlacedByFusionNamesAndExecutionOrder) {
  auto loaded = loadOnnx(dataPath("models/bert_base_l3_light.onnx"));
  ASSERT_TRUE(loaded.hasValue());
  const OnnxGraph& g = *loaded;
  const std::string fixture = "ort130_bert_base_l3_cpu_optimized.json";
  ProfileCostModel trace = load({fixture});
  ProfileCostModel::Match match;
  const ProfileCostModel resolved = trace.resolvedFor(g, twoCores(), match);
  EXPECT_EQ(match.exact, 33);
  EXPECT_EQ(match.renamed, 19) << "MatMulAddFusion, MatMulScaleFusion, GatherSliceToSplitFusion kernels";
  EXPECT_EQ(match.by_order, 25) << "SkipLayerNormalization, Gelu, ... placed between their neighbours";
  EXPECT_EQ(match.unmatched_entries, 3) << "ONNX Runtime's own reshapes around the Gemms of the pooler";
  // 164 operators: the rest of the export's 292 nodes are constants and shape arithmetic that
  // constant folding evaluates (the position Gather of a folded Range too), as ONNX Runtime does.
  EXPECT_EQ(g.nodes.size(), 164u);
  EXPECT_EQ(resolved.matchedNodes(g), g.nodes.size()) << "the attention's Transpose and scale in its fused MatMul";
  // Every kernel's time goes somewhere but for the unmatched three: the operators' times add up to
  // the trace's, less those.
  const std::map<std::string, double> medians = kernelMedians(fixture);
  double kernels = 0;
  for (const auto& [name, seconds] : medians)
    kernels += seconds;
  double placed = 0;
  for (int v = 0; v < static_cast<int>(g.nodes.size()); ++v)
    placed += resolved.estimate(g, v, twoCores()).cpu.value_or(0);
  EXPECT_NEAR(placed + match.unmatched_cpu_seconds, kernels, 1e-9 * kernels);
  // The first layer's fused MatMul+Add kernel lands on its MatMul and Add.
  const double fused = medians.at("/layers.0/self_attn/MatMul/MatMulAddFusion");
  const int matmul = nodeIndex(g, "/layers.0/self_attn/MatMul");
  ASSERT_EQ(g.tensors[g.nodes[matmul].outputs[0]].consumers.size(), 1u);
  const int add = g.tensors[g.nodes[matmul].outputs[0]].consumers.front();
  EXPECT_EQ(g.nodes[add].op_type, "Add");
  EXPECT_NEAR(*resolved.estimate(g, matmul, twoCores()).cpu + *resolved.estimate(g, add, twoCores()).cpu,
              fused, 1e-12);
}

// The case: a CPU trace and a CPU-only device set. Every operator takes its time from the
// trace, and together they take the trace's kernel time less the inserted ReorderOutput.
TEST(ProfileCostModel, CpuTraceGivesACpuOnlyDeviceSetItsTimes) {
  const OnnxGraph& g = squeezenet();
  const DeviceSpec spec = twoCores();
  auto annotated = annotateModel(g, spec, CostSources{{profile(kOptimizedTrace)}, std::nullopt, {}, {}});
  ASSERT_TRUE(annotated.hasValue()) << annotated.status().message();
  const std::map<std::string, double> medians = kernelMedians(kOptimizedTrace);
  double kernels = 0;
  for (const auto& [name, seconds] : medians)
    kernels += name == "ReorderOutput" ? 0 : seconds;
  const OpGraph& p = annotated->problem.graph;
  double total = 0;
  for (int v = 0; v < static_cast<int>(g.nodes.size()); ++v) {
    EXPECT_EQ(annotated->cpu_source[v], 0) << g.nodes[v].name << " takes the profile's time";
    EXPECT_EQ(annotated->accelerator_source[v], -1) << "no accelerators";
    EXPECT_TRUE(std::isinf(p[v].p_acc));
    total += p[v].p_cpu;
    if (auto it = medians.find(g.nodes[v].name); it != medians.end()) {
      EXPECT_DOUBLE_EQ(p[v].p_cpu, it->second) << g.nodes[v].name;
    }
  }
  EXPECT_NEAR(total, kernels, 1e-9 * kernels);
  ASSERT_FALSE(annotated->notes.empty());
  EXPECT_NE(annotated->notes.front().find("66 of 66 operators matched"), std::string::npos)
      << annotated->notes.front();
  EXPECT_NE(annotated->notes.front().find("1 entries match no operator"), std::string::npos)
      << annotated->notes.front();
  // The placement is made of those times: the two cores' loads add up to the trace.
  auto outcome = runPipeline(annotated->problem, pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  const Evaluation eval = evaluateThroughput(outcome->problem, outcome->solve.placement.device_of);
  EXPECT_NEAR(eval.devices[0].load + eval.devices[1].load, kernels, 1e-9 * kernels);
  EXPECT_GT(eval.devices[0].load, 0);
  EXPECT_GT(eval.devices[1].load, 0);
}

// With accelerators, a node the trace times only on the CPU keeps the roofline's accelerator time.
TEST(ProfileCostModel, WithAcceleratorsACpuTimeKeepsTheRooflineAcceleratorTime) {
  const OnnxGraph& g = squeezenet();
  DeviceSpec spec = *devicePreset(kDefaultDevicePreset);
  spec.accelerators.op_overhead = 5e-6;  // added to the roofline's accelerator times
  spec.cpus = twoCores().cpus;           // the same CPU figures: a fused kernel's time splits the same way
  auto annotated = annotateModel(g, spec, CostSources{{profile(kOptimizedTrace)}, std::nullopt, {}, {}});
  ASSERT_TRUE(annotated.hasValue()) << annotated.status().message();
  auto cpu_only = annotateModel(g, twoCores(), CostSources{{profile(kOptimizedTrace)}, std::nullopt, {}, {}});
  ASSERT_TRUE(cpu_only.hasValue());
  RooflineCostModel roofline;
  for (int v = 0; v < static_cast<int>(g.nodes.size()); ++v) {
    const OpNode& node = annotated->problem.graph[v];
    EXPECT_EQ(annotated->accelerator_source[v], 1) << "the roofline, second in the stack";
    EXPECT_EQ(annotated->cpu_source[v], 0) << "the profile";
    EXPECT_DOUBLE_EQ(node.p_acc, *roofline.estimate(g, v, spec).accelerator + 5e-6) << g.nodes[v].name;
    EXPECT_DOUBLE_EQ(node.p_cpu, cpu_only->problem.graph[v].p_cpu) << g.nodes[v].name;
  }
  const std::string notes = annotated->notes.back();
  EXPECT_NE(notes.find("66 operator(s) take their accelerator and cpu times from different sources"),
            std::string::npos)
      << notes;
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

}  // namespace profile_cost_model_test
}  // namespace placer::testing
