// The synthetic graph generator: deterministic for a seed, acyclic, of the size asked, with about
// the edges its model draws, costs as App. B.1 describes them, and a workload that reads back to the
// same problem.
#include "core/synthetic.h"

#include <gtest/gtest.h>

#include "onnx_io/workload_json.h"

namespace placer::testing {
namespace synthetic_test {

Problem make(RandomGraphModel model, int nodes, double degree, std::uint64_t seed) {
  SyntheticOptions options;
  options.model = model;
  options.nodes = nodes;
  options.degree = degree;
  options.seed = seed;
  auto p = makeSyntheticProblem(options);
  EXPECT_TRUE(p.hasValue()) << p.status().message();
  return p.hasValue() ? std::move(*p) : Problem{};
}

std::vector<std::pair<std::size_t, std::size_t>> edgesOf(const Problem& p) {
  std::vector<std::pair<std::size_t, std::size_t>> edges;
  for (auto [it, end] = boost::edges(p.graph); it != end; ++it)
    edges.emplace_back(boost::source(*it, p.graph), boost::target(*it, p.graph));
  return edges;
}

TEST(Synthetic, SameSeedSameGraphOtherSeedAnother) {
  for (RandomGraphModel model :
       {RandomGraphModel::ErdosRenyi, RandomGraphModel::BarabasiAlbert, RandomGraphModel::WattsStrogatz}) {
    const Problem a = make(model, 300, 4, 11), b = make(model, 300, 4, 11), c = make(model, 300, 4, 12);
    ASSERT_EQ(boost::num_vertices(a.graph), 300u);
    EXPECT_EQ(edgesOf(a), edgesOf(b));
    for (Vertex v = 0; v < 300; ++v)
      EXPECT_EQ(a.graph[v].p_acc, b.graph[v].p_acc);
    bool differs = edgesOf(a) != edgesOf(c);
    for (Vertex v = 0; v < 300 && !differs; ++v)
      differs = a.graph[v].p_acc != c.graph[v].p_acc;
    EXPECT_TRUE(differs);
  }
}

TEST(Synthetic, AcyclicWithTheExpectedNumberOfEdges) {
  for (RandomGraphModel model :
       {RandomGraphModel::ErdosRenyi, RandomGraphModel::BarabasiAlbert, RandomGraphModel::WattsStrogatz}) {
    const Problem p = make(model, 2000, 6, 5);
    EXPECT_TRUE(findCycle(p.graph, false).empty());
    for (auto [u, v] : edgesOf(p))
      EXPECT_LT(u, v);  // numbered along the orientation
    // An average degree of 6 is about 3 edges per node (within 10%; Barabasi-Albert exactly 3).
    const double per_node = static_cast<double>(boost::num_edges(p.graph)) / 2000;
    EXPECT_NEAR(per_node, 3.0, 0.3) << static_cast<int>(model);
  }
}

// A node's accelerator time is its input tensors plus its output tensor plus a fraction of all
// tensors' total below 2 / n; transfer costs are 0.25 x the tensor's size; CPU time is 10 x.
TEST(Synthetic, CostsFollowTheRule) {
  const int n = 500;
  const Problem p = make(RandomGraphModel::ErdosRenyi, n, 4, 9);
  std::vector<double> size(n, -1), inputs(n, 0);
  for (auto [it, end] = boost::edges(p.graph); it != end; ++it) {
    const Vertex u = boost::source(*it, p.graph), v = boost::target(*it, p.graph);
    size[u] = p.graph[*it].cost / 0.25;
    inputs[v] += size[u];
  }
  double total = 0;
  int known = 0;
  for (double s : size) {
    if (s >= 0) {
      total += s;
      ++known;
    }
  }
  const double total_estimate = total / known * n;  // sinks' sizes are not visible through edges
  int checked = 0;
  for (int v = 0; v < n; ++v) {
    if (size[v] < 0) continue;
    const double extra = p.graph[v].p_acc - inputs[v] - size[v];
    EXPECT_GE(extra, -1e-9) << v;
    EXPECT_LT(extra, 2.0 / n * total_estimate * 1.2) << v;
    EXPECT_GE(size[v], 0.05);
    EXPECT_DOUBLE_EQ(p.graph[v].p_cpu, 10 * p.graph[v].p_acc);
    ++checked;
  }
  EXPECT_GT(checked, 300);  // nodes with a successor (about three quarters at degree 4)
}

TEST(Synthetic, WorkloadRoundTrips) {
  const Problem p = make(RandomGraphModel::BarabasiAlbert, 200, 4, 3);
  auto json = workloadToJson(p);
  ASSERT_TRUE(json.hasValue()) << json.status().message();
  auto back = parseWorkload(json->dump(), "synthetic.json");
  ASSERT_TRUE(back.hasValue()) << back.status().message();
  EXPECT_EQ(edgesOf(*back), edgesOf(p));
  ASSERT_EQ(boost::num_vertices(back->graph), boost::num_vertices(p.graph));
  for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v) {
    EXPECT_DOUBLE_EQ(back->graph[v].p_acc, p.graph[v].p_acc);
    EXPECT_DOUBLE_EQ(back->graph[v].p_cpu, p.graph[v].p_cpu);
  }
  EXPECT_EQ(back->devices.accelerators, 4);
}

TEST(Synthetic, BadOptionsAreRefused) {
  SyntheticOptions options;
  options.nodes = 1;
  EXPECT_FALSE(makeSyntheticProblem(options).hasValue());
  options.nodes = 10;
  options.degree = 10;
  EXPECT_FALSE(makeSyntheticProblem(options).hasValue());
  EXPECT_FALSE(parseRandomGraphModel("gnp").hasValue());
  EXPECT_NE(parseRandomGraphModel("gnp").status().message().find("er, ba or ws"), std::string::npos);
}

}  // namespace synthetic_test
}  // namespace placer::testing
