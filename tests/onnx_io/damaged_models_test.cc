// Models damaged as users' models are (issue 29, part 7): every stage written from them passes the
// ONNX checker's full check, or the run is refused naming the tensor, node or attribute at fault; a
// model no runtime can run is refused with the reason rather than placed.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "onnx_io/onnx_model.h"
#include "onnx_io/placement_plan.h"
#include "onnx_io/stage_models.h"
#include "tests/onnx_io/onnx_checker.h"

namespace placer::testing {
namespace damaged_models_test {

// Writes the model; `damage` (may be null) changes it first, where the text format cannot say it.
std::string writeModel(const std::string& text, const std::string& name, void (*damage)(onnx::ModelProto&) = nullptr) {
  onnx::ModelProto model;
  auto status = onnx::OnnxParser::Parse(model, text.c_str());
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
  if (damage) damage(model);
  const auto path = std::filesystem::temp_directory_path() /
                    ("damaged-" + name + "-" + std::to_string(::getpid()) + ".onnx");
  std::ofstream out(path, std::ios::binary);
  model.SerializeToOstream(&out);
  return path.string();
}

// The model's operators cut in two halves.
PlacementPlan halves(const OnnxGraph& graph) {
  PlacementPlan plan;
  plan.devices = {PlannedDevice{"gpu:0", true, 0}, PlannedDevice{"gpu:1", true, 1}};
  plan.stages = {PlannedStage{0, "stage0", 1, 1, 0}, PlannedStage{1, "stage1", 1, 1, 0}};
  const int n = static_cast<int>(graph.nodes.size());
  for (int i = 0; i < n; ++i) plan.stage_of_node.push_back(i < n / 2 ? 0 : 1);
  return plan;
}

std::string fullCheck(const std::string& bytes) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return "does not parse";
  return checkerError(model);
}

Status loadError(const std::string& text, const std::string& name) {
  const std::string path = writeModel(text, name);
  auto graph = loadOnnx(path);
  std::filesystem::remove(path);
  return graph.hasValue() ? Status::ok() : graph.status();
}

TEST(DamagedModels, AnOutputDeclaredWithAnotherElementTypeIsRefusedNamingIt) {
  const Status s = loadError(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2, 4] x) => (float[2, 4] y, float shape) <int64[2] shape = {2, 4}> {
      r = Relu(x)
      y = Relu(r)
    })",
                             "output-type");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("graph output 'shape' is declared as FLOAT, but the tensor is INT64"), std::string::npos)
      << s.message();
}

TEST(DamagedModels, AWeightOutputWithoutAShapeOrWithAnotherGetsItsOwnInItsStage) {
  for (bool wrong_rank : {false, true}) {
  SCOPED_TRACE(wrong_rank ? "declared as a scalar" : "declared without a shape");
  const std::string path = writeModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2, 4] x) => (float[2, 4] y, float w) {
      s = Constant <value = int64[2] {4, 4}> ()
      w = ConstantOfShape <value = float[1] {0.5}> (s)
      a = MatMul(x, w)
      b = Relu(a)
      c = MatMul(b, w)
      y = Relu(c)
    })",
                                      "weight-output",
                                      wrong_rank ? nullptr : +[](onnx::ModelProto& m) {
                                        m.mutable_graph()->mutable_output(1)->mutable_type()->mutable_tensor_type()->clear_shape();
                                      });
  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  auto stages = buildStageModels(path, *graph, halves(*graph));
  std::filesystem::remove(path);
  ASSERT_TRUE(stages.hasValue()) << stages.status().message();
  for (const StageModel& stage : stages->models) {
    onnx::ModelProto dump;
    dump.ParseFromString(stage.bytes);
    EXPECT_EQ(fullCheck(stage.bytes), "") << stage.file_name << dump.graph().DebugString();
  }
  onnx::ModelProto last;
  ASSERT_TRUE(last.ParseFromString(stages->models.back().bytes));
  bool found = false;
  for (const auto& output : last.graph().output()) {
    if (output.name() != "w") continue;
    found = true;
    ASSERT_EQ(output.type().tensor_type().shape().dim_size(), 2);
    EXPECT_EQ(output.type().tensor_type().shape().dim(0).dim_value(), 4);
  }
  EXPECT_TRUE(found);
  }
}

TEST(DamagedModels, ATensorOfUnknownTypeCrossingStagesIsRefusedNamingIt) {
  const std::string path = writeModel(R"(
    <ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
    g (float[2, 4] x) => (float[2, 4] y) {
      a = Relu(x)
      b = com.example.Mystery(a)
      c = com.example.Mystery(b)
      y = com.example.Mystery(c)
    })",
                                      "unknown-op");
  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  auto stages = buildStageModels(path, *graph, halves(*graph));
  std::filesystem::remove(path);
  ASSERT_FALSE(stages.hasValue());
  EXPECT_NE(stages.status().message().find("tensor 'b' crosses a stage boundary"), std::string::npos)
      << stages.status().message();
}

TEST(DamagedModels, ModelsNoRuntimeCanRunAreRefusedWithTheReason) {
  const Status negative = loadError(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2, -3] x) => (float[2, -3] y) { y = Relu(x) })",
                                    "negative");
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.message().find("graph input 'x' declares dimension 1 as -3"), std::string::npos)
      << negative.message();

  const Status group = loadError(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[1, 4, 8, 8] x) => (float y) {
      s = Constant <value = int64[4] {6, 2, 3, 3}> ()
      w = ConstantOfShape <value = float[1] {0.5}> (s)
      y = Conv <group = 3> (x, w)
    })",
                                 "group");
  ASSERT_FALSE(group);
  EXPECT_NE(group.message().find("its group 3 does not divide its 4 input channels"), std::string::npos)
      << group.message();

  const Status huge = loadError(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[1099511627776, 1099511627776] x) => (float y) { y = Relu(x) })",
                                "huge");
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.message().find("tensor 'x' [1099511627776, 1099511627776] would hold"), std::string::npos)
      << huge.message();

  for (const char* op : {"Concat <axis = 5> (x, x)", "Softmax <axis = 4> (x)", "Gather <axis = 3> (x, i)"}) {
    const Status axis = loadError(std::string(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2, 3] x) => (float y) <int64[2] i = {0, 1}> { y = )") + op + " }",
                                  "axis");
    ASSERT_FALSE(axis) << op;
    EXPECT_NE(axis.message().find("axis"), std::string::npos) << axis.message();
  }
}

}  // namespace damaged_models_test
}  // namespace placer::testing
