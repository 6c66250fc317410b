// The solver registry, and properties every registered solver keeps (DESIGN.md, "Tests"): through
// its default pipeline it answers, its placement passes verify(), a throughput answer is never below
// the DP optimum among contiguous splits when contiguous (and equals it when exact), a non-contiguous
// exact one is never above it, and the latency integer programs are never worse than the splits they
// start from.
#include "solvers/registry.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "core/evaluate.h"
#include "core/latency.h"
#include "passes/pass_manager.h"
#include "tests/graph_builder.h"

namespace placer::testing {
namespace registry_test {

// A random DAG of n nodes (edges to the next few nodes), memory on some, one colocated pair.
Problem smallDag(std::uint32_t seed, int n) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> cost(0.5, 8), comm(0, 2), mem(0, 30);
  GraphBuilder b({2, 100, 1});
  for (int v = 0; v < n; ++v) {
    const double p = cost(rng);
    b.node(p, p * (2 + cost(rng) / 4), mem(rng));
  }
  for (int v = 1; v < n; ++v) {
    const int u = std::max(0, v - 1 - static_cast<int>(rng() % 3));
    b.edge(u, v, comm(rng));
    if (v > 2 && rng() % 3 == 0) b.edge(v - 3, v, comm(rng));
  }
  if (rng() % 2 == 0) b.colocate(1, 0).colocate(n - 1, 0);
  return b.build();
}

// one-accelerator refuses a model that does not fit one accelerator (every node here runs on one).
bool fitsOneAccelerator(const SolverInfo& s, const Problem& p) {
  return s.name != "one-accelerator" || totalMemory(p) <= p.devices.memory;
}

SolveResult solve(const Problem& p, const std::string& name) {
  auto outcome = runPipeline(p, defaultPipeline(name, p.objective.goal));
  EXPECT_TRUE(outcome.hasValue()) << name << ": " << outcome.status().message();
  return outcome.hasValue() ? outcome->solve : SolveResult{};
}

TEST(SolverRegistry, NamesAreUniqueAndUnknownOnesListTheKnown) {
  std::set<std::string> names;
  for (const SolverInfo& s : builtinSolvers().all()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_TRUE(s.solve) << s.name;
    EXPECT_TRUE(s.throughput || s.latency) << s.name;
    EXPECT_FALSE(s.summary.empty()) << s.name;
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"auto", "dp", "dpl", "cluster-dp", "slicegraph", "ip", "ip-noncontig",
                                   "greedy", "one-accelerator", "local-search", "pipedream", "scotch"}));
  EXPECT_EQ(builtinSolvers().names(),
            "auto, dp, dpl, cluster-dp, slicegraph, ip, ip-noncontig, greedy, one-accelerator, local-search, "
            "pipedream or scotch");
  auto unknown = findSolver("magic");
  ASSERT_FALSE(unknown.hasValue());
  EXPECT_NE(unknown.status().message().find("unknown algorithm 'magic' (expected auto, dp, dpl"),
            std::string::npos);
  auto pipeline = runPipeline(smallDag(1, 6), "subdivide,partition=magic,expand");
  ASSERT_FALSE(pipeline.hasValue());
  EXPECT_NE(pipeline.status().message().find("unknown algorithm 'magic'"), std::string::npos);
}

TEST(SolverRegistry, DefaultPipelinesRunEachSolversReductions) {
  // Without the certificate, so that the reductions are what is compared.
  const Goal throughput = Goal::Throughput;
  EXPECT_EQ(defaultPipeline("dp", throughput, false),
            "subdivide,colocate,orphans,scc,fold-leaves,partition=dp,expand");
  EXPECT_EQ(defaultPipeline("ip", throughput, false), "subdivide,colocate,scc,partition=ip,expand");
  EXPECT_EQ(defaultPipeline("ip-noncontig", throughput, false),
            "subdivide,colocate,partition=ip-noncontig,expand");
  EXPECT_EQ(defaultPipeline("ip", Goal::Latency, false), "subdivide,partition=ip,expand");
  // By default the certify pass follows the partition pass.
  EXPECT_EQ(defaultPipeline("dp"), "subdivide,colocate,orphans,scc,fold-leaves,partition=dp,certify,expand");
  EXPECT_EQ(defaultPipeline("ip", Goal::Latency), "subdivide,partition=ip,certify,expand");
}

TEST(SolverRegistry, EveryThroughputSolverAnswersAndVerifies) {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    const Problem p = smallDag(seed, 7 + static_cast<int>(seed % 4));
    const double optimum = solve(p, "dp").value;
    for (const SolverInfo& s : builtinSolvers().all()) {
      if (!s.throughput || !fitsOneAccelerator(s, p)) continue;
      const SolveResult r = solve(p, s.name);
      SCOPED_TRACE(s.name + ", seed " + std::to_string(seed));
      // Scotch may exceed memory (reported, and checked in tests/solvers/baselines_test.cc).
      const Problem checked = s.may_exceed_memory ? withUnlimitedMemory(p) : p;
      EXPECT_TRUE(verify(checked, r.placement, s.contiguous).isOk())
          << verify(checked, r.placement, s.contiguous).message();
      EXPECT_LE(r.bound, r.value + 1e-9);
      if (s.contiguous) {
        EXPECT_GE(r.value, optimum - 1e-9) << "below the contiguous optimum";
      }
      if (s.exact && s.contiguous) {
        EXPECT_NEAR(r.value, optimum, 1e-9);
      }
      if (s.exact && !s.contiguous) {
        EXPECT_LE(r.value, optimum + 1e-9) << "a contiguous split is a candidate";
      }
    }
  }
}

TEST(SolverRegistry, EveryLatencySolverAnswersAndTheProgramsBeatTheirStarts) {
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    Problem p = smallDag(seed, 6 + static_cast<int>(seed % 3));
    p.objective.goal = Goal::Latency;
    std::map<std::string, double> value;
    for (const SolverInfo& s : builtinSolvers().all()) {
      if (!s.latency || !fitsOneAccelerator(s, p)) continue;
      const SolveResult r = solve(p, s.name);
      SCOPED_TRACE(s.name + ", seed " + std::to_string(seed));
      EXPECT_TRUE(verifyLatency(p, r.placement).isOk()) << verifyLatency(p, r.placement).message();
      value[s.name] = r.value;
    }
    EXPECT_LE(value["ip-noncontig"], value["greedy"] + 1e-9) << "seed " << seed;
    EXPECT_LE(value["ip-noncontig"], value["dpl"] + 1e-9) << "seed " << seed;
    EXPECT_LE(value["ip"], value["dpl"] + 1e-9) << "seed " << seed;
  }
}

}  // namespace registry_test
}  // namespace placer::testing
