#include "passes/fold_leaves.h"

#include <gtest/gtest.h>

#include "passes/colocate.h"
#include "passes/pass_manager.h"
#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace fold_leaves_test {

TEST(FoldLeaves, FreeSourcesAndSinksJoinTheirNeighbour) {
  GraphBuilder b({2, 100, 0});
  int in = b.node(0, 0), x = b.node(1, 1), y = b.node(1, 1), out = b.node(0, 0), busy = b.node(1, 0);
  b.edge(in, x, 5).edge(x, y, 1).edge(y, out, 5).edge(y, busy, 1);
  Problem p = b.build();
  PipelineState ctx;
  ASSERT_TRUE(runPass<FoldLeavesPass>(p, ctx).isOk());
  ASSERT_EQ(boost::num_vertices(p.graph), 3u);  // {in, x}, {y, out}, busy (takes time: kept)
  EXPECT_EQ(ctx.mappings().back().new_of_old, (std::vector<Vertex>{0, 0, 1, 1, 2}));
}

TEST(FoldLeaves, LeavesWithMemoryStayWhenMemoryCanBind) {
  GraphBuilder tight({2, 10, 0});
  int a = tight.node(0, 0, 6), b = tight.node(1, 1, 6);
  tight.edge(a, b, 1);
  Problem p = tight.build();
  PipelineState ctx;
  ASSERT_TRUE(runPass<FoldLeavesPass>(p, ctx).isOk());
  EXPECT_EQ(boost::num_vertices(p.graph), 2u);

  GraphBuilder roomy({2, 12, 0});
  a = roomy.node(0, 0, 6);
  b = roomy.node(1, 1, 6);
  roomy.edge(a, b, 1);
  p = roomy.build();
  ASSERT_TRUE(runPass<FoldLeavesPass>(p, ctx).isOk());
  EXPECT_EQ(boost::num_vertices(p.graph), 1u);
}

TEST(FoldLeaves, BackwardPartnerFoldsWithItsLeaf) {
  // Forward in -> x, backward x' -> in' mirrored, classes {in, in'} and {x, x'}.
  GraphBuilder b({2, 100, 0});
  int in = b.node(0, 0), x = b.node(1, 1), bx = b.node(1, 1), bin = b.node(0, 0);
  b.colocate(in, 0).colocate(bin, 0).colocate(x, 1).colocate(bx, 1).backward(bx).backward(bin);
  b.edge(in, x, 1).edge(x, bx, 1).edge(bx, bin, 1);
  Problem p = b.build();
  PipelineState ctx;
  ASSERT_TRUE(runPass<ColocatePass>(p, ctx).isOk());
  ASSERT_TRUE(runPass<FoldLeavesPass>(p, ctx).isOk());
  ASSERT_EQ(boost::num_vertices(p.graph), 2u);
  EXPECT_EQ(p.graph[0].colocation, p.graph[1].colocation);
  EXPECT_NE(p.graph[0].backward, p.graph[1].backward);
}

TEST(FoldLeaves, NeverChangesTheOptimum) {
  // Workloads where folding removes nodes: the optimum with and without the pass is the same.
  for (const char* workload : {"throughput-inputs/LayerGraphs/bert24_training.json",
                               "throughput-inputs/LayerGraphs/bert24_inference.json"}) {
    auto folded = runPipeline(loadWorkload(workload), pipelineFor("dp"));
    auto plain = runPipeline(loadWorkload(workload), "subdivide,colocate,orphans,scc,partition=dp,expand");
    ASSERT_TRUE(folded.hasValue() && plain.hasValue());
    EXPECT_LT(folded->solve.stats.ideals, plain->solve.stats.ideals) << workload;
    EXPECT_DOUBLE_EQ(folded->solve.value, plain->solve.value) << workload;
  }
}

}  // namespace fold_leaves_test
}  // namespace placer::testing
