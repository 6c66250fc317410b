#include "passes/colocate.h"

#include <gtest/gtest.h>

#include "passes/scc_contraction.h"
#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace colocate_test {

TEST(Colocate, ContractsEachClassPerSide) {
  GraphBuilder b({2, 100, 1});
  int f1 = b.node(1, 10, 5), f2 = b.node(2, 20, 6), g = b.node(4, 40);
  int b1 = b.node(8, 80, 1), b2 = b.node(16, 160, 2);
  b.colocate(f1, 3).colocate(f2, 3).colocate(b1, 3).colocate(b2, 3).backward(b1).backward(b2);
  b.edge(f1, g, 1).edge(f2, g, 1).edge(g, b1, 1).edge(b1, b2, 1);
  Problem p = b.build();
  PipelineState ctx;
  ASSERT_TRUE(runPass<ColocatePass>(p, ctx).isOk());
  ASSERT_EQ(boost::num_vertices(p.graph), 3u);  // {f1,f2}, g, {b1,b2}
  const OpNode& fw = p.graph[0];
  EXPECT_FALSE(fw.backward);
  EXPECT_DOUBLE_EQ(fw.p_acc, 3);
  EXPECT_DOUBLE_EQ(fw.p_cpu, 30);
  EXPECT_DOUBLE_EQ(fw.memory, 11);
  EXPECT_EQ(fw.members, (std::vector<int>{f1, f2}));
  const OpNode& bw = p.graph[2];
  EXPECT_TRUE(bw.backward);
  EXPECT_EQ(bw.colocation, 3);
  EXPECT_EQ(bw.members, (std::vector<int>{b1, b2}));
  // f1 -> g and f2 -> g become one edge; b1 -> b2 disappears inside the group.
  EXPECT_EQ(boost::num_edges(p.graph), 2u);
  // The two outputs stay two transfers of the merged node; b1 -> b2 is internal.
  ASSERT_EQ(p.nets.size(), 3u);
  EXPECT_EQ(ctx.mappings().back().new_of_old, (std::vector<Vertex>{0, 0, 1, 2, 2}));
  EXPECT_TRUE(ctx.cyclesPossible());
}

TEST(Colocate, CyclesThroughAClassAreContractedByScc) {
  // u -> v -> w with u, w colocated: after colocation {u,w} <-> v is a cycle, and any contiguous
  // colocation-respecting split has all three together.
  GraphBuilder b;
  int u = b.node(1, 1), v = b.node(1, 1), w = b.node(1, 1), x = b.node(1, 1);
  b.colocate(u, 0).colocate(w, 0).edge(u, v, 1).edge(v, w, 1).edge(w, x, 1);
  Problem p = b.build();
  PipelineState ctx;
  ASSERT_TRUE(runPass<ColocatePass>(p, ctx).isOk());
  EXPECT_FALSE(findCycle(p.graph, true).empty());
  ASSERT_TRUE(runPass<SccContractionPass>(p, ctx).isOk());
  EXPECT_TRUE(findCycle(p.graph, true).empty());
  EXPECT_FALSE(ctx.cyclesPossible());
  ASSERT_EQ(boost::num_vertices(p.graph), 2u);
  EXPECT_EQ(p.graph[0].members, (std::vector<int>{u, v, w}));
  EXPECT_DOUBLE_EQ(p.graph[0].p_acc, 3);
}

TEST(Scc, BackwardPartnersOfAComponentMergeIntoOneClass) {
  // Forward u -> v -> w with u, w in class 0 and v in class 1; backward partners in both classes.
  GraphBuilder b;
  int u = b.node(1, 1), v = b.node(1, 1), w = b.node(1, 1);
  int bu = b.node(2, 2), bv = b.node(3, 3);
  b.colocate(u, 0).colocate(w, 0).colocate(v, 1).colocate(bu, 0).colocate(bv, 1).backward(bu).backward(bv);
  b.edge(u, v, 1).edge(v, w, 1).edge(w, bv, 1).edge(bv, bu, 1);
  Problem p = b.build();
  PipelineState ctx;
  ASSERT_TRUE(runPass<ColocatePass>(p, ctx).isOk());
  ASSERT_TRUE(runPass<SccContractionPass>(p, ctx).isOk());
  ASSERT_EQ(boost::num_vertices(p.graph), 2u);
  const OpNode& fw = p.graph[0];
  const OpNode& bw = p.graph[1];
  EXPECT_FALSE(fw.backward);
  EXPECT_TRUE(bw.backward);
  EXPECT_EQ(fw.colocation, bw.colocation);
  EXPECT_EQ(bw.members, (std::vector<int>{bu, bv}));
  EXPECT_DOUBLE_EQ(bw.p_acc, 5);
}

}  // namespace colocate_test
}  // namespace placer::testing
