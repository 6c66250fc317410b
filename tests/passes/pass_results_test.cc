// What passes return and what the pass manager does with it: mappings owned and composed by the
// manager (expand maps back through a pass's returned mapping), lossy mappings recorded as such and
// left uncertified, broken mappings refused, the certify pass as the only source of certificates,
// and a solver's failure or time-out as their own status codes.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/evaluate.h"
#include "passes/certify.h"
#include "passes/expand.h"
#include "passes/partition.h"
#include "passes/pass_manager.h"
#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace pass_results_test {

// Merges vertices 0 and 1 into one (the other vertices keep their order), returning the mapping as
// exact or lossy; `broken` returns a mapping one entry short, as a faulty plugin might.
class MergeFirstTwo : public Pass {
 public:
  explicit MergeFirstTwo(bool exact = true, bool broken = false) : exact_(exact), broken_(broken) {}
  std::string_view name() const override { return "merge-first-two"; }
  Expected<PassResult> run(Problem& problem, const PassOptions&, PipelineState&) override {
    const std::size_t n = boost::num_vertices(problem.graph);
    std::vector<int> group_of(n);
    for (std::size_t v = 0; v < n; ++v)
      group_of[v] = v == 0 ? 0 : static_cast<int>(v) - 1;
    problem = contractGroups(problem, group_of, static_cast<int>(n) - 1);
    PassResult result;
    result.changed = true;
    result.mapping = VertexMapping{{group_of.begin(), group_of.end()}, exact_};
    if (broken_) result.mapping->new_of_old.pop_back();
    result.note = "merged vertices 0 and 1";
    return result;
  }

 private:
  bool exact_, broken_;
};

// A chain a -> b -> c -> d whose best split on two accelerators is {a, b} | {c, d}.
Problem chain() {
  GraphBuilder b({2, 100, 0});
  int a = b.node(1, 10), x = b.node(1, 10), c = b.node(1, 10), d = b.node(1, 10);
  b.edge(a, x, 0.1).edge(x, c, 0.1).edge(c, d, 0.1);
  return b.build();
}

const SolverInfo& dpl() {
  return *builtinSolvers().find("dpl");
}

TEST(PassResults, TheManagerKeepsTheMappingAPassReturns) {
  Problem p = chain();
  PassManager manager;
  manager.add(std::make_unique<MergeFirstTwo>());
  PipelineState state;
  ASSERT_TRUE(manager.run(p, PassOptions{}, state).isOk());
  EXPECT_EQ(boost::num_vertices(p.graph), 3u);
  ASSERT_EQ(state.mappings().size(), 1u);
  EXPECT_EQ(state.mappings()[0].new_of_old, (std::vector<Vertex>{0, 0, 1, 2}));
  EXPECT_TRUE(state.mappings()[0].exact);
  EXPECT_FALSE(state.lossy());
  ASSERT_NE(state.original(), nullptr);
  EXPECT_EQ(boost::num_vertices(state.original()->graph), 4u);
  ASSERT_EQ(manager.log().size(), 1u);
  EXPECT_EQ(manager.log()[0].note, "merged vertices 0 and 1");
  EXPECT_EQ(manager.log()[0].nodes_before, 4u);
  EXPECT_EQ(manager.log()[0].nodes_after, 3u);
}

TEST(PassResults, ExpandMapsBackThroughTheReturnedMappings) {
  Problem p = chain();
  PassManager manager;
  manager.add(std::make_unique<MergeFirstTwo>());
  manager.add(std::make_unique<MergeFirstTwo>());  // {a, b, c}, d: composed by the manager
  manager.add(std::make_unique<PartitionPass>(dpl()));
  manager.add(std::make_unique<ExpandPass>());
  PipelineState state;
  ASSERT_TRUE(manager.run(p, PassOptions{}, state).isOk());
  EXPECT_TRUE(state.mappings().empty()) << "expand spends the mappings";
  EXPECT_EQ(boost::num_vertices(p.graph), 4u) << "the original problem again";
  ASSERT_TRUE(state.solve.has_value());
  const std::vector<int>& device_of = state.solve->placement.device_of;
  ASSERT_EQ(device_of.size(), 4u);
  EXPECT_EQ(device_of[0], device_of[1]);
  EXPECT_EQ(device_of[1], device_of[2]);
  EXPECT_NE(device_of[2], device_of[3]);
  EXPECT_TRUE(verify(p, state.solve->placement).isOk());
}

TEST(PassResults, ALossyMappingIsRecordedAndLeftUncertified) {
  Problem p = chain();
  PassManager manager;
  manager.add(std::make_unique<MergeFirstTwo>(/*exact=*/false));
  manager.add(std::make_unique<PartitionPass>(dpl()));
  manager.add(std::make_unique<CertifyPass>());
  manager.add(std::make_unique<ExpandPass>());
  PipelineState state;
  ASSERT_TRUE(manager.run(p, PassOptions{}, state).isOk());
  EXPECT_TRUE(state.lossy()) << "stays recorded after expand";
  EXPECT_TRUE(manager.log()[0].lossy);
  EXPECT_FALSE(manager.log()[1].lossy);
  ASSERT_TRUE(state.solve.has_value());
  EXPECT_TRUE(state.solve->certificate.method.empty());
  EXPECT_NE(manager.log()[2].note.find("lossy"), std::string::npos) << manager.log()[2].note;
}

TEST(PassResults, AMappingThatDoesNotFitIsAnInternalError) {
  Problem p = chain();
  PassManager manager;
  manager.add(std::make_unique<MergeFirstTwo>(true, /*broken=*/true));
  PipelineState state;
  const Status s = manager.run(p, PassOptions{}, state);
  EXPECT_EQ(s.code(), StatusCode::Internal);
  EXPECT_NE(s.message().find("merge-first-two"), std::string::npos) << s.message();
}

TEST(PassResults, OnlyAPipelineWithCertifyGivesACertificate) {
  const Problem p = loadWorkload("throughput-inputs/LayerGraphs/bert24_inference.json");
  const std::string pipeline = defaultPipeline("dpl");
  EXPECT_NE(pipeline.find(",partition=dpl,certify,expand"), std::string::npos) << pipeline;
  auto certified = runPipeline(p, pipeline);
  ASSERT_TRUE(certified.hasValue()) << certified.status().message();
  EXPECT_FALSE(certified->solve.certificate.method.empty());
  EXPECT_GT(certified->solve.certificate.lower, 0);
  EXPECT_EQ(certified->log[certified->log.size() - 2].name, "certify");

  auto plain = runPipeline(p, defaultPipeline("dpl", Goal::Throughput, /*certify=*/false));
  ASSERT_TRUE(plain.hasValue()) << plain.status().message();
  EXPECT_TRUE(plain->solve.certificate.method.empty());
  EXPECT_EQ(plain->solve.certificate.lower, 0);
  EXPECT_EQ(plain->solve.value, certified->solve.value) << "the same split either way";
}

TEST(PassResults, CertifyNeedsAPartitionBeforeIt) {
  auto outcome = runPipeline(chain(), "certify,partition=dpl,expand");
  ASSERT_FALSE(outcome.hasValue());
  EXPECT_NE(outcome.status().message().find("nothing to certify"), std::string::npos)
      << outcome.status().message();
}

// A solver whose answer is fixed: an error, or a time-out without a split.
SolverInfo fixedSolver(SolveStatus status, std::string message) {
  SolverInfo info = dpl();
  info.name = "fixed";
  info.precondition = nullptr;
  info.solve = [status, message](const Problem&, const SolveOptions&) {
    SolveResult result;
    result.status = status;
    result.message = message;
    return result;
  };
  return info;
}

Status partitionWith(const SolverInfo& solver, double time_limit) {
  Problem p = chain();
  PassManager manager;
  manager.add(std::make_unique<PartitionPass>(solver));
  PassOptions options;
  options.solver.time_limit = time_limit;
  PipelineState state;
  return manager.run(p, options, state);
}

TEST(PassResults, ASolverFailureIsAnInternalError) {
  const SolverInfo failing = fixedSolver(SolveStatus::Error, "the backend gave up");
  const Status s = partitionWith(failing, kInfinity);
  EXPECT_EQ(s.code(), StatusCode::Internal);
  EXPECT_NE(s.message().find("the backend gave up"), std::string::npos) << s.message();
}

TEST(PassResults, ATimeOutWithoutASplitHasItsOwnCode) {
  const SolverInfo out_of_time = fixedSolver(SolveStatus::TimeLimit, "stopped");
  const Status s = partitionWith(out_of_time, 5);
  EXPECT_EQ(s.code(), StatusCode::TimeLimit);
  EXPECT_NE(s.message().find("no split found within the time limit of 5 s"), std::string::npos)
      << s.message();
}

// The real thing: numbers GLPK's scaling cannot take make the integer program fail.
TEST(PassResults, NumbersTheProgramCannotTakeAreAnInternalError) {
  GraphBuilder b({2, 1e9, 0});
  int x = b.node(1e200, 1e200, 1e3), y = b.node(1e200, 1e200, 1e3);
  b.edge(x, y, 1);
  auto outcome = runPipeline(b.build(), defaultPipeline("ip-noncontig"));
  ASSERT_FALSE(outcome.hasValue());
  EXPECT_EQ(outcome.status().code(), StatusCode::Internal) << outcome.status().message();
}

}  // namespace pass_results_test
}  // namespace placer::testing
