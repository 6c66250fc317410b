// SegmentCosts against the evaluator: on random orders of random contracted graphs (inference and
// training, CPU boundary costs, memory, shared weights, unsupported nodes, the overlap modes), every
// segment [b, e) of the order is put on one device and everything else elsewhere, and what the
// evaluator charges that device must equal the structure's answer.
#include "solvers/slicegraph/segment_costs.h"

#include <gtest/gtest.h>

#include "core/evaluate.h"
#include "solvers/slicegraph/slicer.h"
#include "tests/solvers/random_contracted.h"

namespace placer::testing {
namespace segment_costs_test {

void expectNear(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::abs(want))) << what;
}

TEST(SegmentCosts, EqualsTheEvaluatorOnEverySegment) {
  int segments = 0, unsupported = 0, with_memory_sharing = 0;
  for (std::uint32_t seed = 1; seed <= 120; ++seed) {
    std::mt19937 rng(seed);
    const bool training = seed % 2 == 0;
    Problem p = randomContracted(rng, 4 + static_cast<int>(seed % 11), training);
    const UnitGraph units = makeUnitGraph(p);
    const std::vector<int> order = unitOrder(units, randomForwardOrder(p, rng));
    ASSERT_EQ(static_cast<int>(order.size()), units.size()) << "seed " << seed;
    // Devices for the oracle: the segment on accelerator 0 or CPU 2, the rest on accelerator 1.
    Problem oracle = p;
    oracle.devices = {2, kInfinity, 1};
    SegmentCosts costs(units, order);
    const int n = units.size();
    for (int e = 1; e <= n; ++e) {
      costs.advance(e);
      for (int b = 0; b < e; ++b) {
        const std::string where = "seed " + std::to_string(seed) + " segment [" + std::to_string(b) + ", " +
                                  std::to_string(e) + ")";
        std::vector<int> on_acc(boost::num_vertices(p.graph), 1), on_cpu = on_acc;
        bool has_unsupported = false;
        for (int i = b; i < e; ++i) {
          for (Vertex v : units.vertices[order[i]]) {
            on_acc[v] = 0;
            on_cpu[v] = 2;
            has_unsupported |= !p.graph[v].supportedOnAccelerator();
          }
        }
        const SegmentLoad s = costs.load(b);
        const DeviceLoad acc = evaluateThroughput(oracle, on_acc).devices[0];
        const DeviceLoad cpu = evaluateThroughput(oracle, on_cpu).devices[2];
        EXPECT_EQ(s.unsupported, has_unsupported) << where;
        unsupported += has_unsupported;
        if (!has_unsupported) expectNear(s.p_acc, acc.compute, where + " accelerator compute");
        expectNear(s.comm_in, acc.comm_in, where + " incoming");
        expectNear(s.comm_out, acc.comm_out, where + " outgoing");
        expectNear(s.memory, acc.memory, where + " memory");
        expectNear(costs.memory(b), acc.memory, where + " memory()");
        expectNear(s.p_cpu, cpu.compute, where + " CPU compute");
        expectNear(s.cpu_comm, cpu.comm_in + cpu.comm_out, where + " CPU boundary cost");
        // The cost the slicer uses: the evaluator's accelerator load (overlap mode) and the limits.
        const double limit = p.devices.memory;
        const double want =
            has_unsupported || acc.memory > limit
                ? kInfinity
                : acceleratorLoad(p.objective.overlap, acc.compute, acc.comm_in, acc.comm_out);
        if (std::isinf(want)) {
          EXPECT_TRUE(std::isinf(s.acceleratorCost(units))) << where;
        } else {
          expectNear(s.acceleratorCost(units), want, where + " accelerator cost");
        }
        with_memory_sharing += !p.weights.empty();
        ++segments;
      }
    }
  }
  // The cases cover what they claim to.
  EXPECT_GT(segments, 3000);
  EXPECT_GT(unsupported, 300);
  EXPECT_GT(with_memory_sharing, 1000);
}

}  // namespace segment_costs_test
}  // namespace placer::testing
