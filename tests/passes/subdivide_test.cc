#include "passes/subdivide.h"

#include <gtest/gtest.h>

#include "core/evaluate.h"
#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace subdivide_test {

TEST(Subdivide, NodesWithDifferingCostsGetOneNodePerTransfer) {
  GraphBuilder b({3, 100, 1});
  int u = b.node(1, 1), v1 = b.node(1, 1), v2 = b.node(1, 1), w = b.node(1, 1);
  b.edge(u, v1, 0.25).edge(u, v2, 0.75).edge(v1, w, 2).edge(v2, w, 2);
  Problem p = b.build();
  PipelineState ctx;
  ASSERT_TRUE(runPass<SubdividePass>(p, ctx).isOk());
  ASSERT_EQ(boost::num_vertices(p.graph), 6u);
  // Every node now has at most one outgoing net, and out_cost is its cost.
  std::vector<int> nets_of(6, 0);
  for (const Net& net : p.nets)
    ++nets_of[net.source];
  for (int n : nets_of)
    EXPECT_LE(n, 1);
  EXPECT_DOUBLE_EQ(p.graph[v1].out_cost, 2);
  for (Vertex x = 4; x < 6; ++x) {
    EXPECT_TRUE(p.graph[x].artificial);
    EXPECT_EQ(p.graph[x].colocation, p.graph[u].colocation);
    EXPECT_TRUE(p.graph[x].members.empty());
  }
  ASSERT_EQ(ctx.mappings().size(), 1u);
  EXPECT_EQ(ctx.mappings()[0].new_of_old, (std::vector<Vertex>{0, 1, 2, 3}));
}

TEST(Subdivide, LoadsOfEveryPlacementAreUnchanged) {
  GraphBuilder b({3, 100, 1});
  int u = b.node(1, 4), v1 = b.node(2, 5), v2 = b.node(3, 6), w = b.node(4, 7);
  b.edge(u, v1, 0.25).edge(u, v2, 0.75).edge(u, w, 0.75).edge(v1, w, 2).edge(v2, w, 1);
  Problem before = b.build();
  Problem after = before;
  PipelineState ctx;
  ASSERT_TRUE(runPass<SubdividePass>(after, ctx).isOk());
  const std::size_t n = boost::num_vertices(after.graph);
  for (int code = 0; code < 4 * 4 * 4 * 4; ++code) {
    std::vector<int> dev{code % 4, code / 4 % 4, code / 16 % 4, code / 64 % 4};
    std::vector<int> dev_after = dev;
    dev_after.resize(n, dev[u]);  // subdivision nodes sit with u (they are colocated with it)
    Evaluation e1 = evaluateThroughput(before, dev), e2 = evaluateThroughput(after, dev_after);
    for (int d = 0; d < 4; ++d)
      EXPECT_DOUBLE_EQ(e1.devices[d].load, e2.devices[d].load) << code;
  }
}

TEST(Subdivide, UniformNodesAreLeftAlone) {
  GraphBuilder b;
  int u = b.node(1, 1), v = b.node(1, 1), w = b.node(1, 1);
  b.edge(u, v, 3).edge(u, w, 3);
  Problem p = b.build();
  PipelineState ctx;
  ASSERT_TRUE(runPass<SubdividePass>(p, ctx).isOk());
  EXPECT_EQ(boost::num_vertices(p.graph), 3u);
  EXPECT_DOUBLE_EQ(p.graph[u].out_cost, 3);
  ASSERT_EQ(p.nets.size(), 1u);
  EXPECT_EQ(p.nets[0].sinks, (std::vector<Vertex>{1, 2}));
}

}  // namespace subdivide_test
}  // namespace placer::testing
