#include "passes/orphans.h"

#include <gtest/gtest.h>

#include "passes/pass_manager.h"
#include "core/evaluate.h"
#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace orphans_test {

// Forward a -> b; backward b' -> x' -> a' where x' has no forward partner (an orphan).
Problem trainingWithOrphan() {
  GraphBuilder g({2, 100, 0});
  int a = g.node(4, 4), b = g.node(4, 4);
  int bb = g.node(4, 4), x = g.node(6, 6), ba = g.node(4, 4);
  g.colocate(a, 0).colocate(b, 1).colocate(ba, 0).colocate(bb, 1);
  g.backward(bb).backward(x).backward(ba);
  g.edge(a, b, 1).edge(b, bb, 1).edge(bb, x, 1).edge(x, ba, 1);
  return g.build();
}

TEST(Orphans, OrphanGetsAMirroredForwardImage) {
  Problem p = trainingWithOrphan();
  PipelineState ctx;
  ASSERT_TRUE(runPass<OrphansPass>(p, ctx).isOk());
  ASSERT_EQ(boost::num_vertices(p.graph), 6u);
  const OpNode& image = p.graph[5];
  EXPECT_FALSE(image.backward);
  EXPECT_TRUE(image.artificial);
  EXPECT_EQ(image.colocation, p.graph[3].colocation);
  EXPECT_DOUBLE_EQ(image.p_acc, 0);
  // b' -> x' mirrors to image(x') -> b, i.e. x's image -> b... and x' -> a' to a -> image(x').
  auto has_edge = [&](Vertex s, Vertex t) {
    auto [e, found] = boost::edge(s, t, p.graph);
    return found && p.graph[e].artificial;
  };
  EXPECT_TRUE(has_edge(5, 1));
  EXPECT_TRUE(has_edge(0, 5));
  EXPECT_EQ(ctx.mappings().back().new_of_old.size(), 5u);
}

TEST(Orphans, DefaultPipelinePlacesOrphansAndMatchesBruteForce) {
  Problem p = trainingWithOrphan();
  auto outcome = runPipeline(p, pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  const auto& placement = outcome->solve.placement;
  ASSERT_EQ(placement.device_of.size(), 5u);
  EXPECT_TRUE(verify(outcome->problem, placement).isOk());
  // The forward chain is a -> image(x) -> b (mirrored), so contiguous splits put x with a, with b,
  // or alone; each device holds FW+BW. Best: {a, a', x'} = 4+4+6 + comm, {b, b'} = 8 + comm.
  double best = kInfinity;
  for (int da = 0; da < 2; ++da) {
    for (int db = 0; db < 2; ++db) {
      for (int dx = 0; dx < 2; ++dx) {
        std::vector<int> dev{da, db, db, dx, da};
        if (splitViolations(outcome->problem, dev).empty()) {
          best = std::min(best, evaluateThroughput(outcome->problem, dev).max_load);
        }
      }
    }
  }
  EXPECT_DOUBLE_EQ(outcome->solve.value, best);
}

}  // namespace orphans_test
}  // namespace placer::testing
