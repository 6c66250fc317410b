// The pipeline simulator against hand-computed steps: inference on 2 and 4 stages with free transfers
// (Σ t + (M − 1)·max t), GPipe and 1F1B on two stages from their definitions, the all-reduce at the
// end of a training step, and two transfers that share a link waiting for each other.
#include "solvers/mapping/pipeline_simulator.h"

#include <gtest/gtest.h>

namespace placer::testing {
namespace pipeline_simulator_test {

// Devices on a host star; transfers of 0 bytes cost nothing.
Topology star(int devices) {
  Topology t = uniformTopology(devices, 1e9, 0);
  EXPECT_TRUE(t.finish());
  return t;
}

SimulatedPipeline pipelineOf(std::vector<double> forward, std::vector<double> backward = {}) {
  SimulatedPipeline p;
  for (std::size_t s = 0; s < forward.size(); ++s) p.device.push_back(static_cast<int>(s));
  p.forward = std::move(forward);
  p.backward = std::move(backward);
  p.bytes.assign(p.forward.size() - 1, 0.0);
  return p;
}

double step(const SimulatedPipeline& p, const Topology& t, int M, PipelineSchedule schedule) {
  auto r = simulatePipeline(p, t, M, schedule);
  EXPECT_TRUE(r) << r.status().message();
  return r ? r->step_time : -1;
}

TEST(PipelineSimulator, InferenceWithFreeTransfersIsSumPlusMMinusOneTimesTheSlowest) {
  EXPECT_DOUBLE_EQ(step(pipelineOf({1, 3}), star(2), 4, PipelineSchedule::Inference), 4 + 3 * 3);
  EXPECT_DOUBLE_EQ(step(pipelineOf({1, 2, 3, 2}), star(4), 5, PipelineSchedule::Inference), 8 + 4 * 3);
  auto r = simulatePipeline(pipelineOf({1, 2, 3, 2}), star(4), 5, PipelineSchedule::Inference);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->throughput, 5.0 / 20);
  EXPECT_DOUBLE_EQ(r->busy[2], 15);
  EXPECT_DOUBLE_EQ(r->idle[2], 5);
}

// Two stages, forward 1 s and backward 2 s each. GPipe with M = 2: stage 0 runs F0 [0,1] F1 [1,2],
// stage 1 F0 [1,2] F1 [2,3] B1 [3,5] B0 [5,7], stage 0 B1 [5,7] B0 [7,9]: 9 s, which is
// (M + S - 1)(f + b). 1F1B with M = 3: stage 0 runs F0 F1 B0 F2 B1 B2, stage 1 F0 B0 F1 B1 F2 B2;
// stage 1: F0 [1,2] B0 [2,4] F1 [4,5] B1 [5,7] F2 [7,8] B2 [8,10]; stage 0: F0 [0,1] F1 [1,2]
// B0 [4,6] F2 [6,7] B1 [7,9] B2 [10,12]: 12 s.
TEST(PipelineSimulator, GPipeAndOneFOneBFollowTheirDefinitions) {
  const SimulatedPipeline p = pipelineOf({1, 1}, {2, 2});
  EXPECT_DOUBLE_EQ(step(p, star(2), 2, PipelineSchedule::GPipe), 9);
  EXPECT_DOUBLE_EQ(step(p, star(2), 3, PipelineSchedule::OneFOneB), 12);
  EXPECT_DOUBLE_EQ(step(p, star(2), 3, PipelineSchedule::GPipe), 12);
  // The all-reduce ends the step after each stage's last backward: stage 1's ends at 7 (M = 2), then
  // 3 s of all-reduce.
  SimulatedPipeline reduced = p;
  reduced.allreduce = {0.5, 3};
  EXPECT_DOUBLE_EQ(step(reduced, star(2), 2, PipelineSchedule::GPipe), 10);
}

// Three stages on three devices, compute free, each transfer 1 s. On separate links (d0-d1, d1-d2)
// the two micro-batches flow in 3 s; through one switch, d0->d1 and d1->d2 both cross d1's link to
// the switch, so each waits for the other: 4 s.
TEST(PipelineSimulator, TransfersSharingALinkWaitForEachOther) {
  SimulatedPipeline p = pipelineOf({0, 0, 0});
  p.bytes = {1e9, 1e9};
  Topology line;
  line.kinds = {"a"};
  for (int i = 0; i < 3; ++i) line.devices.push_back({"d" + std::to_string(i), 0});
  line.links = {{0, 1, 1e9, 0}, {1, 2, 1e9, 0}, {0, 3, 1e6, 0}, {1, 3, 1e6, 0}, {2, 3, 1e6, 0}};
  ASSERT_TRUE(line.finish());
  EXPECT_DOUBLE_EQ(step(p, line, 2, PipelineSchedule::Inference), 3);
  Topology switched;
  switched.kinds = {"a"};
  for (int i = 0; i < 3; ++i) switched.devices.push_back({"d" + std::to_string(i), 0});
  switched.switches = {"sw"};
  switched.links = {{0, 3, 1e9, 0}, {1, 3, 1e9, 0}, {2, 3, 1e9, 0}, {0, 4, 1e6, 0}, {1, 4, 1e6, 0}, {2, 4, 1e6, 0}};
  ASSERT_TRUE(switched.finish());
  EXPECT_EQ(switched.path(0, 1).size(), 2u);
  EXPECT_DOUBLE_EQ(step(p, switched, 2, PipelineSchedule::Inference), 4);
}

TEST(PipelineSimulator, RefusesWhatCannotRun) {
  SimulatedPipeline p = pipelineOf({1, 1});
  p.device = {0, 0};
  EXPECT_FALSE(simulatePipeline(p, star(2), 2, PipelineSchedule::Inference));
  EXPECT_FALSE(simulatePipeline(pipelineOf({1, 1}), star(2), 0, PipelineSchedule::Inference));
  EXPECT_FALSE(simulatePipeline(pipelineOf({1, 1}), star(2), 2, PipelineSchedule::GPipe)) << "no backward times";
  EXPECT_FALSE(parsePipelineSchedule("zero-bubble"));
  EXPECT_EQ(*parsePipelineSchedule("1f1b"), PipelineSchedule::OneFOneB);
}

}  // namespace pipeline_simulator_test
}  // namespace placer::testing
