// Machines of several accelerator kinds (issue 30, part 2): each kind its own times and memory, in the
// evaluator, verify(), the exact DP (a count per kind), the integer programs (a column per kind) and
// the certificate (on the one-kind machine a mixed one relaxes to). And replicas (part 4): a
// replicated problem's optimum is the best split by the definition of a replicated pipeline.
//
// The brute force tries every assignment of nodes to devices and keeps the valid ones by the
// library's independent checker (splitViolations: support, each accelerator's own memory, an acyclic
// forward pipeline), scored by the evaluator, which a hand computation checks first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/evaluate.h"
#include "core/latency.h"
#include "core/problem.h"
#include "core/replicas.h"
#include "passes/pass_manager.h"
#include "tests/graph_builder.h"
#include "tests/solvers/random_contracted.h"

namespace placer::testing {
namespace mixed_kinds_test {

// `fast` accelerators of kind "fast" (memory fast_memory) and `slow` of kind "slow".
DeviceSet mixedDevices(int fast, double fast_memory, int slow, double slow_memory, int cpus) {
  DeviceSet devices{fast + slow, std::max(fast_memory, slow_memory), cpus};
  devices.kinds = {{"fast", fast, fast_memory}, {"slow", slow, slow_memory}};
  return devices;
}

bool near(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

Expected<PipelineOutcome> solveWith(const Problem& problem, const std::string& algorithm,
                                    bool certify = false, int threads = 1) {
  PassOptions options;
  options.solver.time_limit = 30;
  options.solver.threads = threads;
  return runPipeline(problem, defaultPipeline(algorithm, Goal::Throughput, certify), options);
}

// The best valid split by exhaustive search; +inf when none is valid. `contiguous`: the forward
// pipeline must be acyclic (the DP's and the contiguous program's space). Scored by max-load, or by
// the GPipe objective when the problem asks for it.
double bruteForce(const Problem& problem, bool contiguous) {
  const int n = static_cast<int>(boost::num_vertices(problem.graph));
  const int devices = problem.devices.count();
  std::vector<int> device_of(n, 0);
  double best = kInfinity;
  while (true) {
    const std::vector<std::string> violations = splitViolations(problem, device_of);
    const bool valid = std::all_of(violations.begin(), violations.end(), [&](const std::string& v) {
      return !contiguous && v.find("the forward pipeline has a cycle") != std::string::npos;
    });
    if (valid) {
      best = std::min(best, problem.objective.gpipe ? gpipeObjective(problem, device_of)
                                                    : evaluateThroughput(problem, device_of).max_load);
    }
    int v = 0;
    while (v < n && ++device_of[v] == devices)
      device_of[v++] = 0;
    if (v == n) return best;
  }
}

// A random forward DAG (randomContracted's) on a mixed machine: each node's time on the slow kind a
// random 1-4x its time on the fast kind (p_acc), memory so that the small kind binds at times; with
// `training`, each forward node has a backward partner in its colocation class.
Problem randomMixed(std::mt19937& rng, int n, const DeviceSet& devices, bool training = false) {
  Problem p =
      randomContracted(rng, n, training, DeviceSet{devices.accelerators, devices.memory, devices.cpus});
  p.devices = devices;
  std::uniform_real_distribution<double> slower(1, 4);
  for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v) {
    OpNode& node = p.graph[v];
    node.p_kinds = {node.supportedOnAccelerator() ? node.p_acc * slower(rng) : kInfinity};
  }
  return p;
}

TEST(MixedKinds, TheEvaluatorAndVerifyPriceEachKind) {
  // a -> b -> c; on the fast kind 2, 1, 3; on the slow kind 6, 2, 9; transfers 0.5 each.
  GraphBuilder b(mixedDevices(1, 10, 1, 100, 1));
  b.node(2, 20, 8);
  b.node(1, 10, 4);
  b.node(3, 30, 50);
  b.edge(0, 1, 0.5).edge(1, 2, 0.5);
  Problem p = b.build();
  p.graph[0].p_kinds = {6};
  p.graph[1].p_kinds = {2};
  p.graph[2].p_kinds = {9};
  ASSERT_TRUE(checkKinds(p).isOk());
  // a on the fast accelerator (0), b and c on the slow one (1): 0.5 + 2 = 2.5 and 0.5 + 2 + 9 = 11.5.
  Evaluation e = evaluateThroughput(p, {0, 1, 1});
  EXPECT_DOUBLE_EQ(e.devices[0].load, 2.5);
  EXPECT_DOUBLE_EQ(e.devices[1].compute, 11);
  EXPECT_DOUBLE_EQ(e.max_load, 11.5);
  EXPECT_TRUE(verify(p, Placement{{0, 1, 1}, {0, 1, 1}, 11.5}).isOk());
  // c (50 bytes) does not fit the fast kind's 10: refused, naming the device and its kind.
  const Status s = verify(p, Placement{{1, 1, 0}, {0, 0, 1}, evaluateThroughput(p, {1, 1, 0}).max_load});
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("accelerator 0 (fast) holds 50 bytes, more than its 10"), std::string::npos)
      << s.message();
  // A node with times on the wrong number of kinds is refused before any pass.
  p.graph[1].p_kinds = {2, 3};
  EXPECT_FALSE(checkMagnitudes(p).isOk());
}

// The faster kind takes the heavier stage: a (4 slow, 2 fast) -> b (2 slow, 1 fast) splits a on the
// fast device and b on the slow one (max 2); on two slow devices the best is 4.
TEST(MixedKinds, TheFasterKindTakesTheHeavierStage) {
  GraphBuilder b(mixedDevices(1, 1e9, 1, 1e9, 0));
  b.node(2, 40);
  b.node(1, 20);
  b.edge(0, 1, 0);
  Problem p = b.build();
  p.graph[0].p_kinds = {4};
  p.graph[1].p_kinds = {2};
  for (const std::string algorithm : {"dp", "dpl", "auto", "ip", "ip-noncontig"}) {
    auto outcome = solveWith(p, algorithm);
    ASSERT_TRUE(outcome) << algorithm << ": " << outcome.status().message();
    EXPECT_DOUBLE_EQ(outcome->solve.value, 2) << algorithm;
    EXPECT_EQ(outcome->solve.placement.device_of, (std::vector<int>{0, 1})) << algorithm;
  }
}

TEST(MixedKinds, TheDpAndTheProgramsEqualBruteForceOnTinyGraphs) {
  int cases = 0, binding = 0, infeasible = 0;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    const bool training = seed % 4 == 0;  // 3 forward nodes and their backward partners
    const int n = training ? 3 : 4 + static_cast<int>(seed % 3);
    const DeviceSet devices =
        mixedDevices(1 + static_cast<int>(seed % 2), 45, 1, 90, static_cast<int>(seed / 2 % 2));
    const Problem p = randomMixed(rng, n, devices, training);
    SCOPED_TRACE("seed " + std::to_string(seed));
    const double contiguous = bruteForce(p, true), any = bruteForce(p, false);
    auto dp = solveWith(p, "dp");
    if (!std::isfinite(contiguous)) {
      ASSERT_FALSE(dp);
      EXPECT_EQ(dp.status().code(), StatusCode::Infeasible) << dp.status().message();
      ++infeasible;
      continue;
    }
    ASSERT_TRUE(dp) << dp.status().message();
    EXPECT_TRUE(near(dp->solve.value, contiguous)) << dp->solve.value << " vs " << contiguous;
    EXPECT_EQ(dp->solve.status, SolveStatus::Optimal);
    ++cases;
    // The same split with every accelerator priced as kind 0 would differ: the kinds matter here.
    Problem alike = p;
    alike.devices.kinds.clear();
    for (Vertex v = 0; v < boost::num_vertices(alike.graph); ++v)
      alike.graph[v].p_kinds.clear();
    if (auto one = solveWith(alike, "dp"); one && !near(one->solve.value, dp->solve.value)) ++binding;
    auto ip = solveWith(p, "ip");
    ASSERT_TRUE(ip) << ip.status().message();
    EXPECT_TRUE(near(ip->solve.value, contiguous)) << "ip " << ip->solve.value << " vs " << contiguous;
    auto noncontig = solveWith(p, "ip-noncontig");
    ASSERT_TRUE(noncontig) << noncontig.status().message();
    EXPECT_TRUE(near(noncontig->solve.value, any))
        << "ip-noncontig " << noncontig->solve.value << " vs " << any;
  }
  EXPECT_GE(cases, 25);
  EXPECT_GE(infeasible, 5);       // unsupported nodes with no CPU: proven infeasible, as brute force finds
  EXPECT_GE(binding, cases / 2);  // most cases would be solved differently with one kind
}

// The GPipe objective (max forward load + max backward load) on a mixed machine: the contiguous and
// the non-contiguous programs equal exhaustive search over the splits of their space on tiny
// training graphs.
TEST(MixedKinds, TheGpipeProgramEqualsBruteForce) {
  int cases = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed + 500);
    Problem p =
        randomMixed(rng, 3, mixedDevices(1, 45, 1, 90, static_cast<int>(seed % 2)), /*training=*/true);
    p.objective.gpipe = true;
    SCOPED_TRACE("seed " + std::to_string(seed));
    PassOptions options;
    options.solver.time_limit = 30;
    for (const bool contiguous : {false, true}) {
      const double truth = bruteForce(p, contiguous);
      auto ip = runPipeline(p, defaultPipeline(contiguous ? "ip" : "ip-noncontig", Goal::Throughput, false),
                            options);
      if (!std::isfinite(truth)) {
        EXPECT_FALSE(ip);
        continue;
      }
      ASSERT_TRUE(ip) << ip.status().message();
      EXPECT_TRUE(near(ip->solve.value, truth)) << contiguous << ": " << ip->solve.value << " vs " << truth;
      EXPECT_EQ(ip->solve.status, SolveStatus::Optimal);
      ++cases;
    }
  }
  EXPECT_GE(cases, 12);
}

// Two kinds with the same times and memory are one kind: the DP's optimum is today's.
TEST(MixedKinds, TwoKindsAlikeGiveTheOneKindOptimum) {
  int solved = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    const bool training = seed % 2 == 0;
    Problem one = randomContracted(rng, 9, training, DeviceSet{3, 90, 1});
    Problem two = one;
    two.devices.kinds = {{"a", 1, 90}, {"b", 2, 90}};
    for (Vertex v = 0; v < boost::num_vertices(two.graph); ++v)
      two.graph[v].p_kinds = {two.graph[v].p_acc};
    auto a = solveWith(one, "dp"), b = solveWith(two, "dp");
    ASSERT_EQ(static_cast<bool>(a), static_cast<bool>(b)) << "seed " << seed;
    if (!a) continue;
    ++solved;
    EXPECT_EQ(a->solve.value, b->solve.value) << "seed " << seed;
    auto c = solveWith(two, "auto");
    ASSERT_TRUE(c) << c.status().message();
    EXPECT_EQ(c->solve.value, a->solve.value) << "seed " << seed;
  }
  EXPECT_GE(solved, 10);
}

// The certificate's bounds come from the one-kind relaxation and stay below the optimum; the DP's
// answer is certified optimal.
TEST(MixedKinds, CertificatesHoldOnTheRelaxation) {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(seed);
    const Problem p = randomMixed(rng, 8, mixedDevices(1, 80, 2, 160, 1));
    auto dp = solveWith(p, "dp", /*certify=*/true);
    ASSERT_TRUE(dp) << "seed " << seed << ": " << dp.status().message();
    const Certificate& c = dp->solve.certificate;
    EXPECT_LE(c.any_lower, dp->solve.value * (1 + 1e-9)) << "seed " << seed;
    EXPECT_EQ(c.lower, c.upper) << "seed " << seed;
    const Problem relaxed = relaxKinds(p);
    EXPECT_FALSE(relaxed.devices.mixed());
    auto r = solveWith(relaxed, "dp");
    ASSERT_TRUE(r);
    EXPECT_LE(r->solve.value, dp->solve.value * (1 + 1e-12)) << "seed " << seed;
    auto ip = solveWith(p, "ip", /*certify=*/true);
    ASSERT_TRUE(ip);
    EXPECT_LE(ip->solve.certificate.lower, dp->solve.value * (1 + 1e-9)) << "seed " << seed;
  }
}

// The table with a count per kind, filled on several threads, is the one-thread table: the same
// optimum and split, on instances large enough (over a thousand ideals) to be filled in parallel.
TEST(MixedKinds, TheParallelTableIsTheSequentialOne) {
  int parallel = 0;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed);
    const Problem p = randomMixed(rng, 22, mixedDevices(2, 400, 2, 800, 1), seed % 2 == 0);
    auto one = solveWith(p, "dp", false, 1), three = solveWith(p, "dp", false, 3);
    ASSERT_TRUE(one && three) << "seed " << seed;
    EXPECT_EQ(one->solve.value, three->solve.value) << "seed " << seed;
    EXPECT_EQ(one->solve.placement.device_of, three->solve.placement.device_of) << "seed " << seed;
    parallel += one->solve.stats.ideals >= 1000;
  }
  EXPECT_GE(parallel, 3);
}

TEST(MixedKinds, SolversThatTreatAcceleratorsAlikeAreRefused) {
  std::mt19937 rng(3);
  const Problem p = randomMixed(rng, 6, mixedDevices(1, 80, 1, 80, 1));
  auto slicegraph = solveWith(p, "slicegraph");
  ASSERT_FALSE(slicegraph);
  EXPECT_NE(slicegraph.status().message().find(
                "slicegraph treats every accelerator alike; on a machine of "
                "several accelerator kinds use auto, dp, dpl, cluster-dp, ip, ip-noncontig, "
                "one-accelerator or pipedream"),
            std::string::npos)
      << slicegraph.status().message();
}

// The latency objective on a mixed machine: auto (the latency program), the greedy and the DP's split
// answer with valid placements, and the certificate's bound (on the one-kind relaxation) stays
// below the program's optimum.
TEST(MixedKinds, TheLatencyObjectivePricesEachKind) {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    std::mt19937 rng(seed + 40);
    Problem latency = randomMixed(rng, 8, mixedDevices(1, 80, 2, 40, 1));
    latency.objective.goal = Goal::Latency;
    PassOptions options;
    options.solver.time_limit = 30;
    for (const std::string algorithm : {"auto", "greedy", "dp"}) {
      auto solved = runPipeline(latency, defaultPipeline(algorithm, Goal::Latency, true), options);
      ASSERT_TRUE(solved) << algorithm << ": " << solved.status().message();
      EXPECT_TRUE(verifyLatency(solved->problem, solved->solve.placement).isOk()) << algorithm << " " << seed;
      EXPECT_LE(solved->solve.certificate.lower, solved->solve.value * (1 + 1e-9)) << algorithm << " " << seed;
      if (algorithm == "auto") {
        EXPECT_EQ(solved->solve.status, SolveStatus::Optimal) << seed;
      }
    }
  }
}

// The definition of a replicated pipeline (core/replicas.h), from the unreplicated evaluator: the
// split on a machine of `stages` (as many accelerators of each kind as the replicas form), each
// accelerator's load divided by R (its replicas share the samples), each CPU core's as it is; the
// best valid split by exhaustive search.
double replicatedBruteForce(const Problem& on_stages, int replicas) {
  const int n = static_cast<int>(boost::num_vertices(on_stages.graph));
  const DeviceSet& devices = on_stages.devices;
  std::vector<int> device_of(n, 0);
  double best = kInfinity;
  while (true) {
    if (splitViolations(on_stages, device_of).empty()) {
      const Evaluation e = evaluateThroughput(on_stages, device_of);
      double value = 0;
      for (int d = 0; d < devices.count(); ++d)
        value = std::max(value, devices.isAccelerator(d) ? e.devices[d].load / replicas : e.devices[d].load);
      best = std::min(best, value);
    }
    int v = 0;
    while (v < n && ++device_of[v] == devices.count())
      device_of[v++] = 0;
    if (v == n) return best;
  }
}

TEST(Replicas, TheReplicatedOptimumIsTheBestReplicatedSplit) {
  struct Machine {
    int accelerators, replicas, stages;
  };
  int cases = 0;
  for (unsigned seed = 1; seed <= 30; ++seed) {
    std::mt19937 rng(seed + 900);
    const Machine m = std::vector<Machine>{{4, 2, 2}, {6, 2, 3}, {7, 3, 2}, {4, 4, 1}}[seed % 4];
    const int cpus = static_cast<int>(seed / 4 % 2);
    const int n = m.stages == 3 ? 5 : 6;
    const Problem p = randomContracted(rng, n, false, DeviceSet{m.accelerators, 70, cpus});
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto replicated = replicatedProblem(p, m.replicas);
    ASSERT_TRUE(replicated) << replicated.status().message();
    EXPECT_EQ(replicated->devices, (DeviceSet{m.stages, 70, cpus}));
    Problem on_stages = p;
    on_stages.devices = DeviceSet{m.stages, 70, cpus};
    const double truth = replicatedBruteForce(on_stages, m.replicas);
    for (const std::string algorithm : {"dp", "ip"}) {
      auto solved = solveWith(*replicated, algorithm);
      if (!std::isfinite(truth)) {
        EXPECT_FALSE(solved) << algorithm;
        continue;
      }
      ASSERT_TRUE(solved) << algorithm << ": " << solved.status().message();
      EXPECT_TRUE(near(solved->solve.value, truth)) << algorithm << " " << solved->solve.value << " vs " << truth;
      ++cases;
    }
  }
  EXPECT_GE(cases, 35);  // the rest: unsupported nodes and no CPU, infeasible as brute force finds
}

// Training: each replica also all-reduces its stage's weight gradients once per step, per sample
// 2(R-1)/R · P / (B·N) for the stage's weight bytes P; the brute force adds that to each
// accelerator's load / R.
TEST(Replicas, ATrainingStageAddsItsAllReduce) {
  const AllReduceCost allreduce{10, 4, 1};  // per sample and weight byte: 2·1/2 / 40 = 0.025 (R = 2)
  int cases = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed + 1300);
    Problem p = randomContracted(rng, 3, /*training=*/true, DeviceSet{4, 70, static_cast<int>(seed % 2)});
    std::uniform_real_distribution<double> weights(0, 60);
    for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v)
      if (!p.graph[v].backward) p.graph[v].weight_bytes = weights(rng);
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto replicated = replicatedProblem(p, 2, &allreduce);
    ASSERT_TRUE(replicated) << replicated.status().message();
    Problem on_stages = p;
    on_stages.devices = DeviceSet{2, 70, p.devices.cpus};
    const int n = static_cast<int>(boost::num_vertices(p.graph));
    std::vector<int> device_of(n, 0);
    double truth = kInfinity;
    while (true) {
      if (splitViolations(on_stages, device_of).empty()) {
        const Evaluation e = evaluateThroughput(on_stages, device_of);
        std::vector<double> bytes(on_stages.devices.count(), 0);
        for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v)
          bytes[device_of[v]] += p.graph[v].weight_bytes;
        double value = 0;
        for (int d = 0; d < on_stages.devices.count(); ++d)
          value = std::max(value, d < 2 ? e.devices[d].load / 2 + 0.025 * bytes[d] : e.devices[d].load);
        truth = std::min(truth, value);
      }
      int v = 0;
      while (v < n && ++device_of[v] == on_stages.devices.count())
        device_of[v++] = 0;
      if (v == n) break;
    }
    auto dp = solveWith(*replicated, "dp");
    if (!std::isfinite(truth)) {
      EXPECT_FALSE(dp);
      continue;
    }
    ASSERT_TRUE(dp) << dp.status().message();
    EXPECT_TRUE(near(dp->solve.value, truth)) << dp->solve.value << " vs " << truth;
    ++cases;
  }
  EXPECT_GE(cases, 8);
  // Without the all-reduce's figures, or without weight bytes, a training graph is refused.
  std::mt19937 rng(3);
  Problem bare = randomContracted(rng, 3, true, DeviceSet{4, 70, 1});
  EXPECT_EQ(replicatedProblem(bare, 2).status().code(), StatusCode::Unsupported);
  auto unweighted = replicatedProblem(bare, 2, &allreduce);
  ASSERT_FALSE(unweighted);
  EXPECT_NE(unweighted.status().message().find("no node gives the bytes of its weights"), std::string::npos);
}

TEST(Replicas, OnAMixedMachineEachKindFormsItsOwnStages) {
  int cases = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed + 700);
    // Two fast and five slow accelerators, two replicas: one fast stage and two slow ones.
    const Problem p = randomMixed(rng, 5, mixedDevices(2, 45, 5, 90, static_cast<int>(seed % 2)));
    auto replicated = replicatedProblem(p, 2);
    ASSERT_TRUE(replicated) << replicated.status().message();
    EXPECT_EQ(replicated->devices.kinds, (std::vector<AcceleratorKind>{{"fast", 1, 45}, {"slow", 2, 90}}));
    EXPECT_EQ(replicaAccelerators(p.devices, 2, 0), (std::vector<int>{0, 1}));  // the fast pair
    EXPECT_EQ(replicaAccelerators(p.devices, 2, 2), (std::vector<int>{4, 5}));  // the second slow pair
    Problem on_stages = p;
    on_stages.devices = mixedDevices(1, 45, 2, 90, static_cast<int>(seed % 2));
    const double truth = replicatedBruteForce(on_stages, 2);
    auto dp = solveWith(*replicated, "dp");
    if (!std::isfinite(truth)) {
      EXPECT_FALSE(dp);
      continue;
    }
    ASSERT_TRUE(dp) << "seed " << seed << ": " << dp.status().message();
    EXPECT_TRUE(near(dp->solve.value, truth)) << "seed " << seed << ": " << dp->solve.value << " vs " << truth;
    ++cases;
  }
  EXPECT_GE(cases, 8);
}

TEST(Replicas, CandidatesAreTheStageCountsWithTheMostReplicas) {
  EXPECT_EQ(replicaCandidates(DeviceSet{4, 1, 1}), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(replicaCandidates(DeviceSet{6, 1, 0}), (std::vector<int>{1, 2, 3, 6}));
  EXPECT_EQ(replicaCandidates(DeviceSet{5, 1, 0}), (std::vector<int>{1, 2, 5}));
  EXPECT_EQ(replicaCandidates(DeviceSet{0, 1, 4}), (std::vector<int>{1}));
  // Training: a larger R all-reduces more, so every R is tried.
  EXPECT_EQ(replicaCandidates(DeviceSet{4, 1, 1}, /*every=*/true), (std::vector<int>{1, 2, 3, 4}));
  // One A and three B: R = 2 forms the stages R = 3 does (one B stage); R = 3 has more replicas.
  EXPECT_EQ(replicaCandidates(mixedDevices(1, 1, 3, 1, 0)), (std::vector<int>{1, 3}));
}

TEST(Replicas, WhatReplicasCannotDoIsRefused) {
  std::mt19937 rng(5);
  const Problem p = randomContracted(rng, 5, false, DeviceSet{4, 70, 1});
  auto too_many = replicatedProblem(p, 5);
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.status().message().find("5 replicas per stage need 5 accelerators of one kind; the machine has 4"),
            std::string::npos)
      << too_many.status().message();
  EXPECT_FALSE(replicatedProblem(p, 0));
  Problem latency = p;
  latency.objective.goal = Goal::Latency;
  EXPECT_EQ(replicatedProblem(latency, 2).status().code(), StatusCode::Unsupported);
}

}  // namespace mixed_kinds_test
}  // namespace placer::testing
