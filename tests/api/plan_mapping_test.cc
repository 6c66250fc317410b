// The stage graph a placement's accelerator stages make for the device mapping (api/plan_mapping.h),
// by hand on a small problem with a CPU stage between two accelerators, and the plan's devices
// renamed to the physical ones.
#include <gtest/gtest.h>

#include "api/plan_mapping.h"
#include "onnx_io/plan_builder.h"

namespace placer::testing {
namespace plan_mapping_test {

// v0 on accelerator 0, v1 and v3 on accelerator 1, v2 on the CPU core (device 2):
//   v0 -> {v1, v2} 100 bytes, v2 -> v3 30 bytes, v1 -> v3 7 bytes (one device), v0 -> v3 no bytes.
struct Fixture {
  Problem problem;
  std::vector<int> device_of{0, 1, 2, 1};
  std::vector<int> stage_of{0, 2, 1, 2};  // pipeline: accelerator 0, the CPU, accelerator 1
  Fixture() {
    for (int v = 0; v < 4; ++v) {
      OpNode node;
      node.name = "v" + std::to_string(v);
      node.p_acc = 1e-3 * (v + 1);
      node.p_cpu = 1e-2;
      node.memory = 1000.0 * (v + 1);
      addNode(problem.graph, node);
    }
    problem.nets = {Net{0, {1, 2}, 1e-6, 0, 100}, Net{2, {3}, 1e-6, 0, 30}, Net{1, {3}, 1e-6, 0, 7},
                    Net{0, {3}, 0, 0, 0}};
    for (const Net& net : problem.nets) {
      for (Vertex sink : net.sinks)
        boost::add_edge(net.source, sink, OpEdge{net.cost, false, 0, net.bytes}, problem.graph);
    }
    problem.devices = DeviceSet{2, 1e9, 1};
  }
  PlacementPlan plan(const Evaluation& eval) const {
    SolveResult solve;
    solve.status = SolveStatus::Feasible;
    solve.placement.device_of = device_of;
    solve.placement.stage_of = stage_of;
    return makePlacementPlan(problem, solve, eval, "test");
  }
};

TEST(PlanMapping, StageGraphHasTheAcceleratorStagesTheirTensorsAndTheHostTraffic) {
  Fixture f;
  const Evaluation eval = evaluateThroughput(f.problem, f.device_of);
  const PlacementPlan plan = f.plan(eval);
  const StageGraph g = api::stageGraphOf(f.problem, f.device_of, eval, plan);
  ASSERT_EQ(g.stages(), 2);
  EXPECT_DOUBLE_EQ(g.compute[0], 1e-3);         // v0
  EXPECT_DOUBLE_EQ(g.compute[1], 2e-3 + 4e-3);  // v1 + v3
  EXPECT_DOUBLE_EQ(g.weight_bytes[0], 1000);
  EXPECT_DOUBLE_EQ(g.weight_bytes[1], 2000 + 4000);
  ASSERT_EQ(g.edges.size(), 1u);  // v0's tensor to accelerator 1
  EXPECT_EQ(g.edges[0].from, 0);
  EXPECT_EQ(g.edges[0].to, 1);
  EXPECT_DOUBLE_EQ(g.edges[0].bytes, 100);
  // Accelerator 0 sends v0's tensor to the CPU once; accelerator 1 receives v2's from it.
  EXPECT_EQ(g.host_bytes, (std::vector<double>{100, 30}));
}

TEST(PlanMapping, ThePlansAcceleratorsBecomeThePhysicalDevices) {
  Fixture f;
  const Evaluation eval = evaluateThroughput(f.problem, f.device_of);
  PlacementPlan plan = f.plan(eval);
  // Three devices on the host only: x and y at 1 MB/s, z at 100 GB/s.
  Topology t;
  t.kinds = {"k"};
  t.devices = {{"x", 0}, {"y", 0}, {"z", 0}};
  t.links = {{0, 3, 1e6, 0}, {1, 3, 1e6, 0}, {2, 3, 1e11, 0}};
  ASSERT_TRUE(t.finish());
  DeviceSpec spec;
  spec.name = "three";
  spec.topology = t;
  api::PlaceOptions options;
  auto report =
      api::mapPlanOntoTopology(spec, options, f.problem, f.device_of, eval, plan, Budget::unlimited());
  ASSERT_TRUE(report) << report.status().message();
  EXPECT_EQ((*report)["topology"], "three");
  EXPECT_EQ((*report)["status"], "optimal");
  // The heavier stage (accelerator 1: 6 ms) gets z; stage 0 either of x and y. Consecutive (x, y):
  // stage 1 pays 6 ms + 100 B and 30 B at 1 MB/s = 6.13 ms; on z 6 ms + 100 B at 1 MB/s = 6.1 ms.
  const std::string first = plan.devices[0].topology_name, second = plan.devices[1].topology_name;
  EXPECT_EQ(second, "z");
  EXPECT_TRUE(first == "x" || first == "y") << first;
  EXPECT_NEAR((*report)["consecutiveMaxStageTime"].get<double>(), 6e-3 + 1e-4 + 3e-5, 1e-12);
  EXPECT_NEAR((*report)["maxStageTime"].get<double>(), 6e-3 + 1e-4 + 30 / 1e11, 1e-12);
  EXPECT_EQ((*report)["mapping"], nlohmann::ordered_json::array({first, second}));
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(plan.devices[d].name, "gpu:" + std::to_string(plan.devices[d].index));
    EXPECT_EQ(t.devices[plan.devices[d].index].name, plan.devices[d].topology_name);
  }
  EXPECT_EQ(plan.devices[2].name, "cpu");
  EXPECT_EQ(plan.layerAssignmentSettings(),
            plan.devices[0].name + "(=stage0); cpu(=cpu0); " + plan.devices[1].name + "(=stage2)");

  // Without a topology nothing changes.
  PlacementPlan plain = f.plan(eval);
  auto none = api::mapPlanOntoTopology(DeviceSpec{}, options, f.problem, f.device_of, eval, plain,
                                       Budget::unlimited());
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->is_null());
  EXPECT_EQ(plain.devices[1].name, "gpu:1");
}

}  // namespace plan_mapping_test
}  // namespace placer::testing
