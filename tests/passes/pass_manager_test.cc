#include "passes/pass_manager.h"

#include <gtest/gtest.h>

#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace pass_manager_test {

TEST(PassManager, ParsesTheDefaultPipeline) {
  PassRegistry registry;
  registerBuiltinPasses(registry);
  PassManager manager;
  EXPECT_TRUE(manager.parsePipeline(registry, kDefaultPipeline).isOk());
}

TEST(PassManager, RejectsUnknownPassesAndArguments) {
  PassRegistry registry;
  registerBuiltinPasses(registry);
  PassManager manager;
  Status s = manager.parsePipeline(registry, "subdivide,frobnicate");
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_NE(s.message().find("unknown pass 'frobnicate'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("scc"), std::string::npos) << "lists the known passes";
  EXPECT_FALSE(manager.parsePipeline(registry, "scc=3").isOk());
  EXPECT_FALSE(manager.parsePipeline(registry, "partition=annealing").isOk());
  EXPECT_FALSE(manager.parsePipeline(registry, "scc,,expand").isOk());
}

TEST(PassManager, LogsEveryPassAndVerifiesEach) {
  Problem problem = loadWorkload("throughput-inputs/OperatorGraphs/bert_l-3_training.json");
  PassRegistry registry;
  registerBuiltinPasses(registry);
  PassManager manager;
  ASSERT_TRUE(manager.parsePipeline(registry, kDefaultPipeline).isOk());
  PassOptions options;
  options.verify_each = true;
  PipelineState ctx;
  ASSERT_TRUE(manager.run(problem, options, ctx).isOk());
  ASSERT_EQ(manager.log().size(), 7u);
  EXPECT_EQ(manager.log()[1].name, "colocate");
  EXPECT_EQ(manager.log()[1].nodes_before, 600u);
  EXPECT_LT(manager.log()[1].nodes_after, 600u);
  EXPECT_EQ(manager.log().back().nodes_after, 600u);  // expand restores the original graph
  ASSERT_TRUE(ctx.solve.has_value());
  EXPECT_EQ(ctx.solve->placement.device_of.size(), 600u);
}

TEST(PassManager, PipelinesMustPartitionAndExpand) {
  auto no_partition =
      runPipeline(loadWorkload("throughput-inputs/LayerGraphs/bert24_inference.json"), "subdivide,scc");
  EXPECT_FALSE(no_partition.hasValue());
  auto no_expand = runPipeline(loadWorkload("throughput-inputs/LayerGraphs/bert24_training.json"),
                               "subdivide,colocate,orphans,scc,partition=dp");
  EXPECT_FALSE(no_expand.hasValue());
  auto expand_first =
      runPipeline(loadWorkload("throughput-inputs/LayerGraphs/bert24_inference.json"), "expand");
  ASSERT_FALSE(expand_first.hasValue());
  EXPECT_NE(expand_first.status().message().find("no partition pass"), std::string::npos);
}

TEST(PassManager, PartitionWithoutContractionSaysWhichPassIsMissing) {
  GraphBuilder b;
  int x = b.node(1, 1), y = b.node(1, 1);
  b.colocate(x, 0).colocate(y, 0).edge(x, y, 1);
  auto outcome = runPipeline(b.build(), "partition=dp,expand");
  ASSERT_FALSE(outcome.hasValue());
  EXPECT_NE(outcome.status().message().find("colocate"), std::string::npos) << outcome.status().message();
}

TEST(PassManager, InfeasibleInstancesNameTheReason) {
  GraphBuilder b({2, 10, 0});
  int x = b.node(1, 1, 4), y = b.node(1, 1, 11, "huge");
  b.edge(x, y, 1);
  auto outcome = runPipeline(b.build(), pipelineFor("dp"));
  ASSERT_FALSE(outcome.hasValue());
  EXPECT_EQ(outcome.status().code(), StatusCode::Infeasible);
  EXPECT_NE(outcome.status().message().find("huge"), std::string::npos) << outcome.status().message();

  GraphBuilder u({2, 10, 0});
  int a = u.node(1, 1), c = u.node(1, 1, 0, "cpu-only");
  u.unsupported(c).edge(a, c, 1);
  outcome = runPipeline(u.build(), pipelineFor("dp"));
  ASSERT_FALSE(outcome.hasValue());
  EXPECT_EQ(outcome.status().code(), StatusCode::Infeasible);
  EXPECT_NE(outcome.status().message().find("cpu-only"), std::string::npos);
  EXPECT_NE(outcome.status().message().find("no CPUs"), std::string::npos);

  // Fits node by node, but no contiguous split of 3 x 6 bytes onto 2 accelerators of 10 exists.
  GraphBuilder m({2, 10, 0});
  int p = m.node(1, 1, 6), q = m.node(1, 1, 6), r = m.node(1, 1, 6);
  m.edge(p, q, 1).edge(q, r, 1);
  outcome = runPipeline(m.build(), pipelineFor("dp"));
  ASSERT_FALSE(outcome.hasValue());
  EXPECT_EQ(outcome.status().code(), StatusCode::Infeasible);
}

}  // namespace pass_manager_test
}  // namespace placer::testing
