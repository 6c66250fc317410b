// Every bundled model, end to end: load, annotate with the roofline model, place with the exact DP on
// the default devices and on 2, 3 and 6 accelerators, then write the annotated model in every mode
// and the per-stage sub-models; everything written passes the ONNX checker, and the stages together
// hold exactly the original operators.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "cost_model/cost_model.h"
#include "onnx_io/annotated_model.h"
#include "onnx_io/plan_builder.h"
#include "onnx_io/stage_models.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace place_end_to_end_test {

onnx::ModelProto parse(const std::string& bytes) {
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(bytes));
  return model;
}

// The checker of libonnx-dev 1.12 knows IR versions up to 8; the newer fields are kept as unknown
// fields, which it ignores.
void expectValid(onnx::ModelProto model, const std::string& what) {
  if (model.ir_version() > 8) model.set_ir_version(8);
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << e.what();
  }
}

using NodeKey = std::tuple<std::string, std::vector<std::string>, std::vector<std::string>>;

NodeKey key(const onnx::NodeProto& node) {
  return {node.op_type(),
          {node.input().begin(), node.input().end()},
          {node.output().begin(), node.output().end()}};
}

class PlaceEndToEnd : public ::testing::TestWithParam<const char*> {};

TEST_P(PlaceEndToEnd, WritesValidModelsAndStages) {
  const auto path = dataPath(std::string("models/") + GetParam());
  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  onnx::ModelProto original;
  {
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(original.ParseFromIstream(&in));
  }
  std::multiset<NodeKey> operators;
  for (const OnnxNode& node : graph->nodes)
    operators.insert(key(original.graph().node(node.onnx_index)));

  RooflineCostModel roofline;
  for (int accelerators : {0, 2, 3, 6}) {  // 0: the default preset's count
    DeviceSpec spec = *devicePreset(kDefaultDevicePreset);
    if (accelerators > 0) spec.accelerators.count = accelerators;
    const std::string where =
        std::string(GetParam()) + " on " + std::to_string(spec.accelerators.count) + " accelerators";
    auto annotated = annotate(*graph, spec, {&roofline});
    ASSERT_TRUE(annotated.hasValue()) << where;
    auto outcome = runPipeline(annotated->problem, pipelineFor("dp"));
    ASSERT_TRUE(outcome.hasValue()) << where << ": " << outcome.status().message();
    const Evaluation eval = evaluateThroughput(outcome->problem, outcome->solve.placement.device_of);
    const PlacementPlan plan = makePlacementPlan(outcome->problem, outcome->solve, eval, "dp");

    for (AnnotateMode mode : {AnnotateMode::Metadata, AnnotateMode::Ort, AnnotateMode::OnnxIr11}) {
      auto bytes = annotatedModelBytes(path, *graph, plan, mode);
      ASSERT_TRUE(bytes.hasValue()) << where << ": " << bytes.status().message();
      onnx::ModelProto model = parse(*bytes);
      if (mode == AnnotateMode::Metadata) {
        EXPECT_EQ(model.ir_version(), original.ir_version());
      }
      expectValid(model, where + ", annotated (" + std::string(annotateModeName(mode)) + ")");
    }

    auto stages = buildStageModels(path, *graph, plan);
    ASSERT_TRUE(stages.hasValue()) << where << ": " << stages.status().message();
    EXPECT_EQ(stages->models.size(), plan.stages.size());
    std::multiset<NodeKey> staged;
    for (const StageModel& stage : stages->models) {
      onnx::ModelProto model = parse(stage.bytes);
      expectValid(model, where + ", " + stage.file_name);
      for (const auto& node : model.graph().node()) {
        if (node.op_type() != "Constant" && node.op_type() != "ConstantOfShape") staged.insert(key(node));
      }
    }
    // Weight producers are copied into every stage that needs them; every operator is in one stage.
    std::multiset<NodeKey> staged_operators;
    for (const NodeKey& k : staged) {
      if (operators.count(k)) staged_operators.insert(k);
    }
    EXPECT_EQ(staged_operators, operators) << where;
  }
}

std::string testName(const ::testing::TestParamInfo<const char*>& info) {
  std::string name = info.param;
  name = name.substr(0, name.find('.'));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Bundled, PlaceEndToEnd,
                         ::testing::Values("resnet50_light.onnx", "mobilenet_v2_light.onnx",
                                           "vgg16_light.onnx", "bert_base_l3_light.onnx",
                                           "bert_base_l6_light.onnx", "light_resnet50.onnx",
                                           "light_vgg19.onnx", "light_bvlc_alexnet.onnx",
                                           "light_squeezenet.onnx"),
                         testName);

// The models that take longest to place and write (Inception-v3: minutes under the sanitizers;
// GoogLeNet, Inception-v1, BERT-12 and the two GPT-2s: 7 to 17 s each there), instantiated apart
// and labelled slow (tests/CMakeLists.txt), which CI's sanitizer stage leaves out: the models above
// cover the same code there, and the tied embedding has tests of its own (tied_embedding_test.cc).
INSTANTIATE_TEST_SUITE_P(BundledLarge, PlaceEndToEnd,
                         ::testing::Values("inception_v3_light.onnx", "googlenet_light.onnx",
                                           "light_inception_v1.onnx", "bert_base_l12_light.onnx",
                                           "gpt_tied_light.onnx", "gpt_untied_light.onnx"),
                         testName);

}  // namespace place_end_to_end_test
}  // namespace placer::testing
