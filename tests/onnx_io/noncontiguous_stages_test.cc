// A non-contiguous split (several pipeline stages per device, §5.2's virtual devices) written back
// into ONNX: every stage is a valid sub-model, the annotated model passes the checker in every mode,
// and the stages together hold exactly the model's operators.
#include <gtest/gtest.h>

#include "solvers/stages.h"
#include "tests/onnx_io/placement_check.h"

namespace placer::testing {
namespace noncontiguous_stages_test {

TEST(NonContiguousStages, AlternatingSplitWritesValidStages) {
  for (const char* name : {"light_squeezenet.onnx", "googlenet_light.onnx"}) {
    const auto path = dataPath(std::string("models/") + name);
    auto graph = loadOnnx(path);
    ASSERT_TRUE(graph.hasValue()) << graph.status().message();
    auto preset = devicePreset(kDefaultDevicePreset);
    ASSERT_TRUE(preset.hasValue());
    DeviceSpec devices = *preset;
    devices.accelerators.count = 2;
    RooflineCostModel roofline;
    auto annotated = annotate(*graph, devices, {&roofline});
    ASSERT_TRUE(annotated.hasValue()) << annotated.status().message();
    const Problem& problem = annotated->problem;
    // Nodes alternate between the two accelerators in blocks of 5 along a topological order.
    auto order = forwardTopologicalOrder(problem.graph);
    ASSERT_TRUE(order.has_value());
    std::vector<int> device_of(boost::num_vertices(problem.graph));
    for (std::size_t i = 0; i < order->size(); ++i)
      device_of[(*order)[i]] = static_cast<int>(i / 5 % 2);
    auto stages = pipelineStages(problem, device_of);
    ASSERT_TRUE(stages.hasValue()) << stages.status().message();
    SolveResult solve;
    solve.status = SolveStatus::Feasible;
    solve.placement.device_of = device_of;
    solve.placement.stage_of = *stages;
    const Evaluation eval = evaluateThroughput(problem, device_of);
    solve.placement.value = eval.max_load;
    solve.value = eval.max_load;
    ASSERT_TRUE(verify(problem, solve.placement, /*contiguous=*/false).isOk());
    const PlacementPlan plan = makePlacementPlan(problem, solve, eval, "hand");
    EXPECT_GT(plan.stages.size(), 2u) << name << ": the split should need more stages than devices";
    expectWritesValidModels(path, *graph, plan, name);
  }
}

}  // namespace noncontiguous_stages_test
}  // namespace placer::testing
