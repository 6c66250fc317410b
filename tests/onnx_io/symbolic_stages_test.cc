// Stages that keep the model's symbolic dimensions (onnx_io/symbolic_dims.h) and KV-cache decoders
// (onnx_io/decoder.h), on the torch-exported fixtures of tests/data/dynamic: which dimensions and
// folded values vary, what they are named, and what the stages declare and hold. That the stages
// run at other dimension values is tests/ort's OrtSymbolicStages.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cost_model/cost_model.h"
#include "cost_model/device_spec.h"
#include "onnx_io/annotated_model.h"
#include "onnx_io/decoder.h"
#include "onnx_io/genai_config.h"
#include "onnx_io/onnx_model.h"
#include "onnx_io/placement_plan.h"
#include "onnx_io/stage_models.h"
#include "onnx_io/symbolic_dims.h"
#include "tests/onnx_io/onnx_checker.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace symbolic_stages_test {

using Json = nlohmann::ordered_json;

std::string dynamicModel(const std::string& file) {
  return dataPath("dynamic/" + file).string();
}

OnnxGraph load(const std::string& file, LoadOptions options) {
  auto graph = loadOnnx(dynamicModel(file), options);
  EXPECT_TRUE(graph.hasValue()) << graph.status().message();
  return graph.hasValue() ? std::move(*graph) : OnnxGraph{};
}

std::vector<std::string> dimsOf(const SymbolicShapes& symbolic, const std::string& tensor) {
  std::vector<std::string> out;
  auto it = symbolic.shapes.find(tensor);
  if (it == symbolic.shapes.end()) return out;
  for (const SymbolicDim& d : it->second) out.push_back(d.param.empty() ? std::to_string(d.value) : d.param);
  return out;
}

// The producer's output of the first node of `op_type` (in model order).
std::string firstOutputOf(const OnnxGraph& graph, const std::string& op_type) {
  for (const OnnxNode& node : graph.nodes) {
    if (node.op_type == op_type) return graph.tensors[node.outputs[0]].name;
  }
  return "";
}

PlacementPlan chunks(const OnnxGraph& graph, int k) {
  PlacementPlan plan;
  const int n = static_cast<int>(graph.nodes.size());
  for (int s = 0; s < k; ++s) {
    plan.devices.push_back(PlannedDevice{"gpu:" + std::to_string(s), true, s});
    plan.stages.push_back(PlannedStage{s, "stage" + std::to_string(s), 1.0, 1e6, 0});
  }
  for (int i = 0; i < n; ++i) plan.stage_of_node.push_back(i * k / n);
  plan.algorithm = "hand";
  plan.status = "feasible";
  plan.value = 1.0;
  return plan;
}

TEST(SymbolicDims, ActivationsFollowBatchAndSequence) {
  LoadOptions options;
  options.dims = {{"batch", 2}, {"seq", 8}};
  const OnnxGraph graph = load("tiny_gpt_dynamic.onnx", options);
  EXPECT_EQ(graph.input_dims, (std::map<std::string, std::int64_t>{{"batch", 2}, {"seq", 8}}));
  const SymbolicShapes symbolic = analyzeSymbolicDims(dynamicModel("tiny_gpt_dynamic.onnx"), graph);
  EXPECT_TRUE(symbolic.notes.empty()) << symbolic.notes.front();
  ASSERT_EQ(symbolic.varied.size(), 4u);  // two other values of each dimension
  // Every LayerNormalization output is [batch, seq, 32]; the attention scores [batch, 4, seq, seq].
  const std::string norm = firstOutputOf(graph, "LayerNormalization");
  EXPECT_EQ(dimsOf(symbolic, norm), (std::vector<std::string>{"batch", "seq", "32"}));
  const std::string softmax = firstOutputOf(graph, "Softmax");
  EXPECT_EQ(dimsOf(symbolic, softmax), (std::vector<std::string>{"batch", "4", "seq", "seq"}));
  // The logits' shape is given by the model; a weight's never varies.
  EXPECT_EQ(dimsOf(symbolic, "logits"), (std::vector<std::string>{"batch", "seq", "96"}));
  onnx::ModelProto proto;
  std::ifstream in(dynamicModel("tiny_gpt_dynamic.onnx"), std::ios::binary);
  ASSERT_TRUE(proto.ParseFromIstream(&in));
  for (const auto& init : proto.graph().initializer()) EXPECT_FALSE(symbolic.shapes.count(init.name())) << init.name();
  // The causal mask's ConstantOfShape([seq, seq]) is a constant whose shape varies.
  EXPECT_EQ(dimsOf(symbolic, "/blocks.0/ConstantOfShape_output_0"), (std::vector<std::string>{"seq", "seq"}));
  // The shape arithmetic behind every Reshape, the positions and the causal mask varies; the
  // folded values that do not vary (constants cast, unsqueezed) are kept as values.
  EXPECT_FALSE(symbolic.dynamic_values.empty());
  EXPECT_LT(symbolic.dynamic_values.size(), graph.folded_values.size());
}

TEST(SymbolicDims, StaticModelsAreNotLoadedAgain) {
  auto graph = loadOnnx(model("resnet50_light.onnx"));
  ASSERT_TRUE(graph.hasValue());
  EXPECT_TRUE(graph->input_dims.empty());
  const SymbolicShapes symbolic = analyzeSymbolicDims(model("resnet50_light.onnx"), *graph);
  EXPECT_TRUE(symbolic.empty());
  EXPECT_TRUE(symbolic.varied.empty());
}

TEST(SymbolicDims, DerivedDimensionsAreNamedAfterWhatTheyEqual) {
  // The decoder's presents are [batch, 4, total, 8], its total tied to past + sequence: moving one
  // alone makes the model inconsistent, so each moves with the total.
  LoadOptions options;
  options.phase = DecoderPhase::Token;
  options.dims = {{"past_sequence_length", 6}};
  const OnnxGraph graph = load("tiny_decoder_kv.onnx", options);
  EXPECT_EQ(graph.phase, "token");
  EXPECT_EQ(graph.input_dims.at("sequence_length"), 1);
  EXPECT_EQ(graph.input_dims.at("total_sequence_length"), 7);
  const SymbolicShapes symbolic = analyzeSymbolicDims(dynamicModel("tiny_decoder_kv.onnx"), graph);
  EXPECT_TRUE(symbolic.notes.empty()) << symbolic.notes.front();
  EXPECT_EQ(dimsOf(symbolic, "present.0.key"), (std::vector<std::string>{"batch", "4", "total_sequence_length", "8"}));
  EXPECT_EQ(dimsOf(symbolic, "logits"), (std::vector<std::string>{"batch", "sequence_length", "96"}));
}

TEST(SymbolicDims, StagesDeclareSymbolicBoundariesAndHoldNoValueThatVaries) {
  LoadOptions options;
  options.dims = {{"batch", 2}, {"seq", 8}};
  const OnnxGraph graph = load("tiny_gpt_dynamic.onnx", options);
  const SymbolicShapes symbolic = analyzeSymbolicDims(dynamicModel("tiny_gpt_dynamic.onnx"), graph);
  const PlacementPlan plan = chunks(graph, 3);
  auto set = buildStageModels(dynamicModel("tiny_gpt_dynamic.onnx"), graph, plan);
  ASSERT_TRUE(set.hasValue()) << set.status().message();
  EXPECT_TRUE(set->notes.empty()) << set->notes.front();
  const Json manifest = Json::parse(set->manifest_json);
  int symbolic_boundaries = 0;
  for (std::size_t k = 0; k < set->models.size(); ++k) {
    SCOPED_TRACE("stage " + std::to_string(k));
    onnx::ModelProto stage;
    ASSERT_TRUE(stage.ParseFromString(set->models[k].bytes));
    EXPECT_EQ(checkerError(stage), "");
    for (const auto& init : stage.graph().initializer()) {
      EXPECT_FALSE(symbolic.dynamic_values.count(init.name())) << init.name() << " is held at the placed dims";
    }
    for (const auto& input : stage.graph().input()) {
      bool any_param = false;
      for (const auto& dim : input.type().tensor_type().shape().dim()) any_param = any_param || dim.has_dim_param();
      const bool should = symbolic.shapes.count(input.name()) > 0;
      EXPECT_EQ(any_param, should) << input.name();
      symbolic_boundaries += any_param && input.name() != "input_ids";
    }
    for (const Json& input : manifest.at("stages").at(k).at("inputs")) {
      if (symbolic.shapes.count(input.at("name"))) {
        EXPECT_TRUE(input.contains("dims")) << input.at("name");
      }
    }
  }
  EXPECT_GT(symbolic_boundaries, 0);
  EXPECT_EQ(manifest.at("dims_varied").size(), 4u);
}

TEST(Decoder, KvCacheLayoutIsFoundByName) {
  onnx::ModelProto model;
  std::ifstream in(dynamicModel("tiny_decoder_kv.onnx"), std::ios::binary);
  ASSERT_TRUE(model.ParseFromIstream(&in));
  const KvCacheLayout layout = findKvCache(model.graph());
  ASSERT_EQ(layout.pairs.size(), 8u);
  EXPECT_EQ(layout.pairs[0].past, "past_key_values.0.key");
  EXPECT_EQ(layout.pairs[0].present, "present.0.key");
  EXPECT_EQ(layout.pairs[1].kind, "value");
  EXPECT_EQ(layout.batch, "batch");
  EXPECT_EQ(layout.sequence, "sequence_length");
  EXPECT_EQ(layout.past, "past_sequence_length");
  EXPECT_EQ(layout.total, "total_sequence_length");
}

TEST(Decoder, PhasesSetTheLengthsAndRefuseContradictions) {
  LoadOptions prompt;
  prompt.dims = {{"sequence_length", 5}};
  const OnnxGraph graph = load("tiny_decoder_kv.onnx", prompt);  // no phase: the prompt, with a warning
  EXPECT_EQ(graph.phase, "prompt");
  EXPECT_EQ(graph.input_dims.at("past_sequence_length"), 0);
  EXPECT_EQ(graph.input_dims.at("total_sequence_length"), 5);
  EXPECT_TRUE(std::any_of(graph.warnings.begin(), graph.warnings.end(),
                          [](const std::string& w) { return w.find("--phase") != std::string::npos; }));

  LoadOptions bad;
  bad.phase = DecoderPhase::Prompt;
  bad.dims = {{"past_sequence_length", 3}};
  auto refused = loadOnnx(dynamicModel("tiny_decoder_kv.onnx"), bad);
  ASSERT_FALSE(refused.hasValue());
  EXPECT_NE(refused.status().message().find("--dim past_sequence_length=3 contradicts --phase prompt"),
            std::string::npos)
      << refused.status().message();

  LoadOptions not_a_decoder;
  not_a_decoder.phase = DecoderPhase::Token;
  auto gpt = loadOnnx(dynamicModel("tiny_gpt_dynamic.onnx"), not_a_decoder);
  ASSERT_FALSE(gpt.hasValue());
  EXPECT_NE(gpt.status().message().find("needs a decoder with a KV cache"), std::string::npos);
}

TEST(Decoder, EachLayersCacheIsColocatedWithItsAttention) {
  LoadOptions options;
  options.phase = DecoderPhase::Token;
  options.dims = {{"batch", 1}, {"past_sequence_length", 16}};
  const OnnxGraph graph = load("tiny_decoder_kv.onnx", options);
  ASSERT_EQ(graph.kv_cache.size(), 8u);
  DeviceSpec devices = *devicePreset(kDefaultDevicePreset);
  RooflineCostModel roofline;
  auto annotation = annotate(graph, devices, {&roofline});
  ASSERT_TRUE(annotation.hasValue()) << annotation.status().message();
  const OpGraph& g = annotation->problem.graph;
  for (const auto& [past, present] : graph.kv_cache) {
    SCOPED_TRACE(graph.tensors[past].name);
    std::set<int> classes;
    for (int reader : graph.tensors[past].consumers) {
      ASSERT_TRUE(g[reader].colocation.has_value());
      classes.insert(*g[reader].colocation);
    }
    ASSERT_GE(graph.tensors[present].producer, 0);
    ASSERT_TRUE(g[graph.tensors[present].producer].colocation.has_value());
    classes.insert(*g[graph.tensors[present].producer].colocation);
    for (int reader : graph.tensors[present].consumers) classes.insert(g[reader].colocation.value_or(-1));
    EXPECT_EQ(classes.size(), 1u);
  }
}

TEST(Decoder, GenAiPipelineIsOnlyForDecodersAndMarksTheLmHead) {
  LoadOptions options;
  options.dims = {{"batch", 2}, {"seq", 8}};
  const OnnxGraph gpt = load("tiny_gpt_dynamic.onnx", options);
  const PlacementPlan gpt_plan = chunks(gpt, 2);
  auto gpt_stages = buildStageModels(dynamicModel("tiny_gpt_dynamic.onnx"), gpt, gpt_plan);
  ASSERT_TRUE(gpt_stages.hasValue());
  auto refused = genaiConfig(gpt, gpt_plan, *gpt_stages);
  ASSERT_FALSE(refused.hasValue());
  EXPECT_NE(refused.status().message().find("needs a decoder with a KV cache"), std::string::npos);

  LoadOptions token;
  token.phase = DecoderPhase::Token;
  token.dims = {{"past_sequence_length", 4}};
  const OnnxGraph decoder = load("tiny_decoder_kv.onnx", token);
  PlacementPlan plan = chunks(decoder, 2);
  plan.devices[1] = PlannedDevice{"cpu", false, 0};
  auto stages = buildStageModels(dynamicModel("tiny_decoder_kv.onnx"), decoder, plan);
  ASSERT_TRUE(stages.hasValue()) << stages.status().message();
  auto text = genaiConfig(decoder, plan, *stages);
  ASSERT_TRUE(text.hasValue()) << text.status().message();
  const Json config = Json::parse(*text);
  EXPECT_EQ(config.at("model").at("type"), "decoder-pipeline");
  EXPECT_EQ(config.at("model").at("decoder").at("inputs").at("past_key_names"), "past_key_values.%d.key");
  const Json& pipeline = config.at("model").at("decoder").at("pipeline").at(0);
  EXPECT_EQ(pipeline.at("stage0").at("session_options").at("provider_options").at(0).at("cuda").at("device_id"), "0");
  EXPECT_FALSE(pipeline.at("stage0").at("is_lm_head"));
  EXPECT_FALSE(pipeline.at("stage1").contains("session_options")) << "a CPU stage";
  EXPECT_TRUE(pipeline.at("stage1").at("is_lm_head"));

  // A stage run by two replicas: GenAI's pipeline has one session per stage, so it is refused; the
  // metadata plan lists the replicas' devices.
  plan.devices[0].replicas = {0, 2};
  auto replicated = genaiConfig(decoder, plan, *stages);
  ASSERT_FALSE(replicated.hasValue());
  EXPECT_NE(replicated.status().message().find("runs each stage on 2 replicas"), std::string::npos)
      << replicated.status().message();
  auto plan_text = placementPlanText(decoder, plan);
  ASSERT_TRUE(plan_text.hasValue());
  EXPECT_EQ(Json::parse(*plan_text).at("devices").at(0).at("replicas"), Json::parse(R"(["gpu:0", "gpu:2"])"));
}

}  // namespace symbolic_stages_test
}  // namespace placer::testing
