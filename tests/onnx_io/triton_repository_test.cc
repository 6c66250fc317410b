// The Triton repository writer (onnx_io/triton_repository.h) on hand-made plans: what each
// config.pbtxt says (platform, batching, dims, device pinning, the ensemble's wiring), and the
// refusals. tests/triton/ parses the written files against Triton's schema and runs the ensemble.
#include <gtest/gtest.h>

#include <string>

#include "onnx_io/onnx_model.h"
#include "onnx_io/stage_models.h"
#include "onnx_io/triton_repository.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace triton_repository_test {

PlacementPlan twoStages(const OnnxGraph& graph, bool cpu_second) {
  PlacementPlan plan;
  plan.devices = {PlannedDevice{"gpu:0", true, 0}, cpu_second ? PlannedDevice{"cpu", false, 0} : PlannedDevice{"gpu:1", true, 1}};
  plan.stages = {PlannedStage{0, "stage0", 1, 1, 0}, PlannedStage{1, cpu_second ? "cpu0" : "stage1", 1, 1, 0}};
  const int n = static_cast<int>(graph.nodes.size());
  for (int i = 0; i < n; ++i) plan.stage_of_node.push_back(i < n / 2 ? 0 : 1);
  return plan;
}

const std::string* config(const TritonRepository& repo, const std::string& path) {
  for (const auto& [name, text] : repo.configs) {
    if (name == path) return &text;
  }
  return nullptr;
}

TEST(TritonRepository, DynamicBatchIsBatchedAndStagesArePinned) {
  const std::string file = dataPath("dynamic/tiny_gpt_dynamic.onnx").string();
  auto graph = loadOnnx(file, LoadOptions{{{"batch", 3}, {"seq", 8}}, 1});
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  const PlacementPlan plan = twoStages(*graph, false);
  auto stages = buildStageModels(file, *graph, plan);
  ASSERT_TRUE(stages.hasValue()) << stages.status().message();
  auto repo = tritonRepository(*stages, plan, "tiny gpt.onnx");
  ASSERT_TRUE(repo.hasValue()) << repo.status().message();
  EXPECT_EQ(repo->ensemble, "tiny_gpt");
  const std::string* stage1 = config(*repo, "tiny_gpt_stage1/config.pbtxt");
  const std::string* ensemble = config(*repo, "tiny_gpt/config.pbtxt");
  ASSERT_TRUE(stage1 && ensemble);
  EXPECT_NE(stage1->find("platform: \"onnxruntime_onnx\"\nmax_batch_size: 3\n"), std::string::npos) << *stage1;
  EXPECT_NE(stage1->find("kind: KIND_GPU\n    count: 1\n    gpus: [ 1 ]"), std::string::npos) << *stage1;
  // The logits [batch, seq, 96] without the batch.
  EXPECT_NE(ensemble->find("name: \"logits\"\n    data_type: TYPE_FP32\n    dims: [ -1, 96 ]"), std::string::npos)
      << *ensemble;
  EXPECT_NE(ensemble->find("model_name: \"tiny_gpt_stage0\"\n      model_version: -1\n      input_map { key: "
                           "\"input_ids\" value: \"input_ids\" }"),
            std::string::npos)
      << *ensemble;
  const auto files = repo->files();
  EXPECT_EQ(files.size(), 6u);  // two models, three configs, the ensemble's version directory
  EXPECT_EQ(files.back().first, "tiny_gpt/1/");
}

TEST(TritonRepository, StaticShapesAreUnbatchedAndCpuStagesUseKindCpu) {
  const std::string file = model("resnet50_light.onnx");
  auto graph = loadOnnx(file);
  ASSERT_TRUE(graph.hasValue());
  const PlacementPlan plan = twoStages(*graph, true);
  auto stages = buildStageModels(file, *graph, plan);
  ASSERT_TRUE(stages.hasValue());
  auto repo = tritonRepository(*stages, plan, file);
  ASSERT_TRUE(repo.hasValue()) << repo.status().message();
  const std::string* stage1 = config(*repo, "resnet50_light_stage1/config.pbtxt");
  ASSERT_TRUE(stage1);
  EXPECT_NE(stage1->find("max_batch_size: 0\n"), std::string::npos);
  EXPECT_NE(stage1->find("kind: KIND_CPU\n    count: 1\n  }"), std::string::npos) << *stage1;
  EXPECT_EQ(stage1->find("gpus"), std::string::npos);
  const std::string* ensemble = config(*repo, "resnet50_light/config.pbtxt");
  ASSERT_TRUE(ensemble);
  EXPECT_NE(ensemble->find("dims: [ 1, 3, 224, 224 ]"), std::string::npos) << *ensemble;
}

TEST(TritonRepository, ModelNamesAreSanitized) {
  EXPECT_EQ(tritonModelName("/a/b/my model+v2.onnx"), "my_model_v2");
  EXPECT_EQ(tritonModelName("model bytes"), "model_bytes");
  EXPECT_EQ(tritonModelName(""), "model");
}

}  // namespace triton_repository_test
}  // namespace placer::testing
