// A decoder with tied input and output embeddings (tests/data/models/gpt_tied_light.onnx: GPT-2 small,
// `wte` read by the input Gather and by the LM head's Gemm) against the same model with the tie cut
// (gpt_untied_light.onnx: the head reads its own copy). Replicating the shared weight must place the
// tied model exactly as well as the untied one, on every device; colocating its readers drags the
// whole decoder onto one device (contiguity), which is what --shared-weights colocate still does. Each
// stage file holds every weight its operators read. (That a weight whose copies would not fit is kept
// on one device is tests/cli/shared_weights_test.cc's: on a chain, memory for the whole model on one
// device is always enough for two copies beside the two halves.)
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <set>
#include <string>

#include "core/shared_weights.h"
#include "tests/onnx_io/placement_check.h"

namespace placer::testing {
namespace tied_embedding_test {

OnnxGraph loadDecoder(const char* file) {
  LoadOptions options;
  options.dims = {{"batch", 1}, {"seq", 128}};
  auto graph = loadOnnx(dataPath(std::string("models/") + file), options);
  EXPECT_TRUE(graph.hasValue()) << graph.status().message();
  return graph.hasValue() ? std::move(*graph) : OnnxGraph{};
}

struct Placed {
  Problem problem;  // the annotated problem, on the model's operators
  SolveResult solve;
};

Placed place(const OnnxGraph& graph, int accelerators, SharedWeightMode mode) {
  DeviceSpec spec = *devicePreset(kDefaultDevicePreset);
  spec.accelerators.count = accelerators;
  RooflineCostModel roofline;
  AnnotateOptions options;
  options.shared_weights = mode;
  auto annotated = annotate(graph, spec, {&roofline}, options);
  EXPECT_TRUE(annotated.hasValue()) << annotated.status().message();
  if (!annotated) return {};
  auto outcome = runPipeline(annotated->problem, pipelineFor("dp"));
  EXPECT_TRUE(outcome.hasValue()) << outcome.status().message();
  if (!outcome) return {};
  EXPECT_TRUE(verify(outcome->problem, outcome->solve.placement).isOk());
  return {std::move(outcome->problem), std::move(outcome->solve)};
}

int devicesUsed(const Placed& p) {
  return static_cast<int>(
      std::set<int>(p.solve.placement.device_of.begin(), p.solve.placement.device_of.end()).size());
}

TEST(TiedEmbedding, ReplicatingTheWeightPlacesLikeTheUntiedModel) {
  const OnnxGraph tied = loadDecoder("gpt_tied_light.onnx");
  const OnnxGraph untied = loadDecoder("gpt_untied_light.onnx");
  ASSERT_FALSE(tied.nodes.empty());
  ASSERT_FALSE(untied.nodes.empty());
  const int wte = tied.tensor_index.at("wte");
  ASSERT_EQ(tied.tensors[wte].consumers.size(), 2u) << "the input Gather and the LM head";
  for (int k : {2, 4}) {
    SCOPED_TRACE(std::to_string(k) + " accelerators");
    const Placed a = place(tied, k, SharedWeightMode::Auto);
    const Placed b = place(untied, k, SharedWeightMode::Auto);
    ASSERT_EQ(a.solve.status, SolveStatus::Optimal);
    ASSERT_EQ(b.solve.status, SolveStatus::Optimal);
    EXPECT_EQ(devicesUsed(a), k) << "every accelerator is used";
    EXPECT_NEAR(a.solve.value, b.solve.value, 1e-12 * b.solve.value) << "the tie costs nothing but memory";
    // The embedding is copied onto the devices of its two readers, each copy counted there.
    const auto& dev = a.solve.placement.device_of;
    const int first = dev[tied.tensors[wte].consumers[0]], last = dev[tied.tensors[wte].consumers[1]];
    EXPECT_NE(first, last);
    bool listed = false;
    for (const ReplicatedWeight& w : replicatedWeights(a.problem, dev)) {
      if (w.name != "wte") continue;
      listed = true;
      EXPECT_EQ(w.devices, (std::vector<int>{std::min(first, last), std::max(first, last)}));
      EXPECT_DOUBLE_EQ(w.added_bytes, 50257.0 * 768 * 4);
    }
    EXPECT_TRUE(listed);
    const Evaluation eval = evaluateThroughput(a.problem, dev);
    EXPECT_GE(eval.devices[first].memory, 50257.0 * 768 * 4);
    EXPECT_GE(eval.devices[last].memory, 50257.0 * 768 * 4);

    // Colocating the readers keeps the whole decoder on one device.
    const Placed c = place(tied, k, SharedWeightMode::Colocate);
    ASSERT_EQ(c.solve.status, SolveStatus::Optimal);
    EXPECT_EQ(devicesUsed(c), 1);
    EXPECT_GT(c.solve.value, 1.5 * a.solve.value);
  }
}

TEST(TiedEmbedding, EveryStageFileHoldsTheWeightsItReads) {
  const OnnxGraph tied = loadDecoder("gpt_tied_light.onnx");
  ASSERT_FALSE(tied.nodes.empty());
  const Placed p = place(tied, 4, SharedWeightMode::Auto);
  ASSERT_FALSE(p.solve.placement.device_of.empty());
  const Evaluation eval = evaluateThroughput(p.problem, p.solve.placement.device_of);
  const PlacementPlan plan = makePlacementPlan(p.problem, p.solve, eval, "dp");
  const auto path = dataPath("models/gpt_tied_light.onnx");
  expectWritesValidModels(path, tied, plan, "gpt_tied_light, 4 accelerators");
  auto stages = buildStageModels(path, tied, plan);
  ASSERT_TRUE(stages.hasValue()) << stages.status().message();
  ScratchDirectory dir("tied-stages");
  int holding_wte = 0;
  for (const StageModel& stage : stages->models) {
    auto reloaded = loadOnnx(dir.write(stage.file_name, stage.bytes));
    ASSERT_TRUE(reloaded.hasValue()) << stage.file_name << ": " << reloaded.status().message();
    for (const OnnxNode& node : reloaded->nodes) {
      for (int t : node.inputs) {
        if (t < 0) continue;
        const std::string& name = reloaded->tensors[t].name;
        auto original = tied.tensor_index.find(name);
        if (original == tied.tensor_index.end() || !tied.tensors[original->second].is_weight) continue;
        EXPECT_TRUE(reloaded->tensors[t].is_weight)
            << stage.file_name << ": " << node.name << " reads weight " << name << ", which the file lacks";
      }
    }
    auto it = reloaded->tensor_index.find("wte");
    if (it != reloaded->tensor_index.end() && reloaded->tensors[it->second].is_weight) ++holding_wte;
  }
  EXPECT_EQ(holding_wte, 2) << "the first and the last stage each hold the embedding";
}

}  // namespace tied_embedding_test
}  // namespace placer::testing
