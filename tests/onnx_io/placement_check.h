// Shared checks for tests that place small hand-built ONNX models end to end, as `place` does: the
// roofline costs, the exact DP, the annotated model in every mode and the stage sub-models. Everything
// written passes the ONNX 1.12 checker, and re-loading the stage files gives back exactly the
// model's operators, each in one stage.
#pragma once

#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cost_model/cost_model.h"
#include "onnx_io/annotated_model.h"
#include "onnx_io/onnx_model.h"
#include "onnx_io/plan_builder.h"
#include "onnx_io/stage_models.h"
#include "core/evaluate.h"
#include "tests/test_util.h"

namespace placer::testing {

// A fresh directory, removed with everything in it at the end of the scope.
class ScratchDirectory {
 public:
  explicit ScratchDirectory(const std::string& name) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("onnx-placer-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

  std::filesystem::path write(const std::string& name, const std::string& bytes) const {
    const auto file = path_ / name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << bytes;
    EXPECT_TRUE(out.good()) << "cannot write " << file;
    return file;
  }

  std::filesystem::path write(const std::string& name, const onnx::ModelProto& model) const {
    return write(name, model.SerializeAsString());
  }

 private:
  std::filesystem::path path_;
};

// The checker of libonnx-dev 1.12 knows IR versions up to 8; the newer fields are unknown fields
// to it, which it ignores.
inline void expectCheckerAccepts(onnx::ModelProto model, const std::string& what) {
  if (model.ir_version() > 8) model.set_ir_version(8);
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << e.what();
  }
}

// An operator by what it does: op type, input and output tensor names (implicit inputs of control
// flow included).
using OperatorKey = std::tuple<std::string, std::vector<std::string>, std::vector<std::string>>;

inline std::multiset<OperatorKey> operatorKeys(const OnnxGraph& graph) {
  std::multiset<OperatorKey> keys;
  for (const OnnxNode& node : graph.nodes) {
    OperatorKey key{node.op_type, {}, {}};
    for (int t : node.inputs)
      std::get<1>(key).push_back(t >= 0 ? graph.tensors[t].name : "");
    for (int t : node.outputs)
      std::get<2>(key).push_back(t >= 0 ? graph.tensors[t].name : "");
    keys.insert(std::move(key));
  }
  return keys;
}

// Every operator's roofline times are finite and the DP places the model on `devices`, as `place`
// does. Returns the plan (empty when a step failed, with the failure recorded).
inline PlacementPlan placeWithDp(const OnnxGraph& graph, const DeviceSpec& devices,
                                 const std::string& where) {
  RooflineCostModel roofline;
  auto annotated = annotate(graph, devices, {&roofline});
  if (!annotated) {
    ADD_FAILURE() << where << ": " << annotated.status().message();
    return {};
  }
  const OpGraph& g = annotated->problem.graph;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    EXPECT_TRUE(std::isfinite(g[v].p_acc) && std::isfinite(g[v].p_cpu)) << where << ": " << g[v].name;
    EXPECT_TRUE(std::isfinite(g[v].memory)) << where << ": " << g[v].name;
  }
  auto outcome = runPipeline(annotated->problem, pipelineFor("dp"));
  if (!outcome) {
    ADD_FAILURE() << where << ": " << outcome.status().message();
    return {};
  }
  const Evaluation eval = evaluateThroughput(outcome->problem, outcome->solve.placement.device_of);
  return makePlacementPlan(outcome->problem, outcome->solve, eval, "dp");
}

// A hand-made plan: the model's node order (topological) cut into `k` contiguous stages, one
// accelerator each, so the stage writer is exercised however small the model is.
inline PlacementPlan chunkPlan(const OnnxGraph& graph, int k) {
  PlacementPlan plan;
  const int n = static_cast<int>(graph.nodes.size());
  k = std::max(1, std::min(k, n));
  for (int s = 0; s < k; ++s) {
    plan.devices.push_back(PlannedDevice{"gpu:" + std::to_string(s), true, s});
    plan.stages.push_back(PlannedStage{s, "stage" + std::to_string(s), 1e-3, 0, 0});
  }
  for (int i = 0; i < n; ++i)
    plan.stage_of_node.push_back(i * k / n);
  plan.algorithm = "hand";
  plan.status = "feasible";
  plan.value = 1e-3;
  return plan;
}

// Writes the annotated model (every mode) and the stage sub-models of `plan` for the model at `path`;
// all pass the checker (the annotated model in metadata mode keeps the IR version), and the stage files,
// re-loaded, hold exactly the operators of `graph`.
inline void expectWritesValidModels(const std::filesystem::path& path, const OnnxGraph& graph,
                                    const PlacementPlan& plan, const std::string& where) {
  onnx::ModelProto original;
  {
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(original.ParseFromIstream(&in)) << where;
  }
  for (AnnotateMode mode : {AnnotateMode::Metadata, AnnotateMode::Ort, AnnotateMode::OnnxIr11}) {
    auto bytes = annotatedModelBytes(path, graph, plan, mode);
    ASSERT_TRUE(bytes.hasValue()) << where << ": " << bytes.status().message();
    onnx::ModelProto model;
    ASSERT_TRUE(model.ParseFromString(*bytes));
    if (mode == AnnotateMode::Metadata) {
      EXPECT_EQ(model.ir_version(), original.ir_version()) << where;
    }
    expectCheckerAccepts(model, where + ", annotated (" + std::string(annotateModeName(mode)) + ")");
  }
  auto stages = buildStageModels(path, graph, plan);
  ASSERT_TRUE(stages.hasValue()) << where << ": " << stages.status().message();
  ASSERT_EQ(stages->models.size(), plan.stages.size()) << where;
  ScratchDirectory dir("stages");
  std::multiset<OperatorKey> staged;
  for (const StageModel& stage : stages->models) {
    onnx::ModelProto model;
    ASSERT_TRUE(model.ParseFromString(stage.bytes));
    EXPECT_EQ(model.ir_version(), original.ir_version()) << where << ", " << stage.file_name;
    expectCheckerAccepts(model, where + ", " + stage.file_name);
    auto reloaded = loadOnnx(dir.write(stage.file_name, stage.bytes));
    ASSERT_TRUE(reloaded.hasValue()) << where << ", " << stage.file_name << ": "
                                     << reloaded.status().message();
    const std::multiset<OperatorKey> keys = operatorKeys(*reloaded);
    staged.insert(keys.begin(), keys.end());
  }
  EXPECT_EQ(staged, operatorKeys(graph)) << where;
}

}  // namespace placer::testing
