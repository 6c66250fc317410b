// Parmesan's operator clustering (solvers/clustering.h) and the cluster pass: on random contracted
// problems and every Table 1 workload, the clusters keep the graph acyclic, fit memory, keep CPU-only
// operators apart and leave a problem the exact DP accepts, and where more than K units remain an
// independent check finds no merge left that the rules allow; on small graphs, the merge order follows
// the score by hand; the pipeline with the pass returns valid splits no better than the exact DP's.
#include "solvers/clustering.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "core/evaluate.h"
#include "passes/cluster.h"
#include "passes/pass_manager.h"
#include "solvers/dp/throughput_dp.h"
#include "tests/graph_builder.h"
#include "tests/solvers/random_contracted.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace clustering_test {

constexpr const char* kReductions = "subdivide,colocate,orphans,scc,fold-leaves";

// Every Table 1 workload (tests/data/workloads/throughput-inputs/*/*.json), sorted.
std::vector<std::string> table1Workloads() {
  std::vector<std::string> out;
  for (const char* folder : {"LayerGraphs", "OperatorGraphs"}) {
    for (const auto& entry :
         std::filesystem::directory_iterator(workloadPath(std::string("throughput-inputs/") + folder)))
      out.push_back(std::string("throughput-inputs/") + folder + "/" + entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Problem reduced(const std::string& workload) {
  Problem problem = loadWorkload(workload);
  PassRegistry registry;
  registerBuiltinPasses(registry);
  PassManager manager;
  EXPECT_TRUE(manager.parsePipeline(registry, kReductions).isOk());
  Status s = manager.run(problem);
  EXPECT_TRUE(s.isOk()) << workload << ": " << s.message();
  return problem;
}

// Per vertex, its unit (colocation class, or the vertex alone), computed apart from the library.
std::vector<int> unitsOf(const OpGraph& g, int& count) {
  std::map<int, int> of_class;
  std::vector<int> unit(boost::num_vertices(g));
  count = 0;
  for (Vertex v = 0; v < unit.size(); ++v) {
    if (g[v].colocation) {
      auto [it, inserted] = of_class.try_emplace(*g[v].colocation, count);
      if (inserted) ++count;
      unit[v] = it->second;
    } else {
      unit[v] = count++;
    }
  }
  return unit;
}

// Whether the quotient of one side's graph (edges between forward, or between backward, vertices)
// over `unit_of` is acyclic (Kahn's algorithm).
bool quotientAcyclic(const OpGraph& g, const std::vector<int>& unit_of, int units, bool backward) {
  std::set<std::pair<int, int>> arcs;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const Vertex x = boost::source(*it, g), y = boost::target(*it, g);
    if (g[x].backward != backward || g[y].backward != backward || unit_of[x] == unit_of[y]) continue;
    arcs.emplace(unit_of[x], unit_of[y]);
  }
  std::vector<int> indegree(units, 0);
  std::vector<std::vector<int>> out(units);
  for (auto [a, b] : arcs) {
    out[a].push_back(b);
    ++indegree[b];
  }
  std::vector<int> ready;
  for (int u = 0; u < units; ++u) {
    if (indegree[u] == 0) ready.push_back(u);
  }
  int done = 0;
  while (!ready.empty()) {
    const int u = ready.back();
    ready.pop_back();
    ++done;
    for (int w : out[u]) {
      if (--indegree[w] == 0) ready.push_back(w);
    }
  }
  return done == units;
}

// The clustering's units: per vertex, the id of its input unit's group of input units.
std::vector<int> finalUnits(const Problem& p, const Clustering& c, int& count) {
  int inputs = 0;
  const std::vector<int> input = unitsOf(p.graph, inputs);
  std::vector<int> root(inputs);
  for (int u = 0; u < inputs; ++u)
    root[u] = u;
  auto find = [&](int u) {
    while (root[u] != u)
      u = root[u];
    return u;
  };
  std::map<int, int> first_unit_of_group;
  for (Vertex v = 0; v < input.size(); ++v) {
    auto [it, inserted] = first_unit_of_group.try_emplace(c.group_of[v], input[v]);
    const int a = find(it->second), b = find(input[v]);
    if (a != b) root[std::max(a, b)] = std::min(a, b);
  }
  std::map<int, int> renumber;
  std::vector<int> out(input.size());
  for (Vertex v = 0; v < input.size(); ++v)
    out[v] = renumber.try_emplace(find(input[v]), static_cast<int>(renumber.size())).first->second;
  count = static_cast<int>(renumber.size());
  return out;
}

// Every property of a clustering of `p` to `target`, and, where more than `target` units remain, that
// no adjacent pair of them may merge (support, memory, devices under `device_of`, or a new cycle in
// either quotient).
void checkClustering(const Problem& p, const Clustering& c, int target, const std::string& label,
                     const std::vector<int>& device_of = {}) {
  SCOPED_TRACE(label);
  const OpGraph& g = p.graph;
  const std::size_t n = boost::num_vertices(g);
  ASSERT_EQ(c.group_of.size(), n);
  std::vector<int> size(static_cast<std::size_t>(c.groups), 0);
  for (int group : c.group_of) {
    ASSERT_GE(group, 0);
    ASSERT_LT(group, c.groups);
    ++size[group];
  }
  EXPECT_EQ(std::count(size.begin(), size.end(), 0), 0) << "an empty cluster";
  std::map<int, bool> side_of_group;
  for (Vertex v = 0; v < n; ++v) {
    auto [it, inserted] = side_of_group.try_emplace(c.group_of[v], g[v].backward);
    EXPECT_EQ(it->second, g[v].backward) << "a cluster mixes forward and backward vertices";
  }
  int inputs = 0;
  const std::vector<int> input = unitsOf(g, inputs);
  int units = 0;
  const std::vector<int> unit_of = finalUnits(p, c, units);
  EXPECT_EQ(units, c.units);
  EXPECT_LE(c.units, c.groups);
  EXPECT_GE(c.units, std::min(target, inputs)) << "merged below K";
  ASSERT_EQ(c.unit_of_group.size(), static_cast<std::size_t>(c.groups));
  for (int u : c.unit_of_group) {
    ASSERT_GE(u, 0);
    ASSERT_LT(u, c.units);
  }
  for (Vertex v = 0; v < n; ++v) {
    for (Vertex w = v + 1; w < n; ++w) {
      if (unit_of[v] == unit_of[w] && g[v].backward == g[w].backward) {
        EXPECT_EQ(c.group_of[v], c.group_of[w]) << "one side of a unit in two clusters";
      }
      EXPECT_EQ(unit_of[v] == unit_of[w], c.unit_of_group[c.group_of[v]] == c.unit_of_group[c.group_of[w]])
          << "the clustering's units are not its clusters' units";
    }
  }

  const Problem contracted = contractClusters(p, c);
  ASSERT_EQ(boost::num_vertices(contracted.graph), static_cast<std::size_t>(c.groups));
  std::vector<int> members, original;
  for (Vertex v = 0; v < boost::num_vertices(contracted.graph); ++v)
    members.insert(members.end(), contracted.graph[v].members.begin(), contracted.graph[v].members.end());
  for (Vertex v = 0; v < n; ++v)
    original.insert(original.end(), g[v].members.begin(), g[v].members.end());
  std::sort(members.begin(), members.end());
  std::sort(original.begin(), original.end());
  EXPECT_EQ(members, original);
  if (checkContracted(p).isOk()) {
    Status s = checkContracted(contracted);
    EXPECT_TRUE(s.isOk()) << s.message();
  }
  if (findCycle(g, true).empty()) {
    EXPECT_TRUE(findCycle(contracted.graph, true).empty());
  }
  for (bool backward : {false, true}) {
    if (quotientAcyclic(g, input, inputs, backward)) {
      EXPECT_TRUE(quotientAcyclic(g, unit_of, units, backward)) << (backward ? "backward" : "forward");
    }
  }

  // Per unit: its vertices, whether any is unsupported, and whether its input units agree on that.
  std::vector<std::vector<Vertex>> vertices(units);
  std::vector<std::set<bool>> support(units);
  std::vector<std::map<int, bool>> input_unsupported(units);
  std::vector<std::set<int>> devices(units);
  for (Vertex v = 0; v < n; ++v) {
    vertices[unit_of[v]].push_back(v);
    if (!device_of.empty()) devices[unit_of[v]].insert(device_of[v]);
    input_unsupported[unit_of[v]][input[v]] |= !g[v].supportedOnAccelerator();
  }
  for (int u = 0; u < units; ++u) {
    for (const auto& [i, unsupported] : input_unsupported[u])
      support[u].insert(unsupported);
    EXPECT_EQ(support[u].size(), 1u) << "a CPU-only unit merged with a supported one";
    if (input_unsupported[u].size() > 1) {
      EXPECT_LE(memoryOfSet(p, vertices[u]), p.devices.memory) << "a merged unit over memory";
    }
  }
  if (c.units <= target) return;
  // More than K left: every adjacent pair must be refused.
  std::set<std::pair<int, int>> pairs;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const int a = unit_of[boost::source(*it, g)], b = unit_of[boost::target(*it, g)];
    if (a != b) pairs.emplace(std::min(a, b), std::max(a, b));
  }
  for (auto [a, b] : pairs) {
    if (*support[a].begin() != *support[b].begin()) continue;
    if (!device_of.empty() && (devices[a].size() > 1 || devices[a] != devices[b])) continue;
    std::vector<Vertex> both = vertices[a];
    both.insert(both.end(), vertices[b].begin(), vertices[b].end());
    if (memoryOfSet(p, both) > p.devices.memory) continue;
    std::vector<int> merged = unit_of;
    for (int& u : merged) {
      if (u == b) u = a;
    }
    const bool forward_ok = quotientAcyclic(g, merged, units, false);
    const bool backward_ok = quotientAcyclic(g, merged, units, true);
    EXPECT_FALSE(forward_ok && backward_ok) << "units " << a << " and " << b << " could still merge";
  }
}

TEST(Clustering, RandomContractedProblemsKeepEveryProperty) {
  int reached = 0, runs = 0;
  for (unsigned seed = 1; seed <= 24; ++seed) {
    std::mt19937 rng(seed);
    const int n = 10 + static_cast<int>(seed * 37 % 51);
    const bool training = seed % 2 == 0;
    const DeviceSet devices = seed % 3 == 0 ? DeviceSet{2, 70, 1} : DeviceSet{3, 2000, 1};
    const Problem p = randomContracted(rng, n, training, devices);
    ASSERT_TRUE(checkContracted(p).isOk());
    for (int target : {8, 20}) {
      ClusterOptions options;
      options.target = target;
      const Clustering c = clusterOperators(p, options);
      checkClustering(p, c, target, "seed " + std::to_string(seed) + ", K " + std::to_string(target));
      ++runs;
      reached += c.units == target;
      // The same input, the same clusters.
      EXPECT_EQ(clusterOperators(p, options).group_of, c.group_of);
    }
  }
  EXPECT_GT(reached, runs / 2) << "K is reached on most roomy instances";
}

TEST(Clustering, Table1WorkloadsKeepEveryProperty) {
  const std::vector<std::string> workloads = table1Workloads();
  ASSERT_EQ(workloads.size(), 16u);
  for (const std::string& workload : workloads) {
    const Problem p = reduced(workload);
    for (int target : {8, 20}) {
      ClusterOptions options;
      options.target = target;
      const Clustering c = clusterOperators(p, options);
      checkClustering(p, c, target, workload + ", K " + std::to_string(target));
      EXPECT_EQ(c.units, target) << workload;  // memory is ample on every one
    }
  }
}

TEST(Clustering, ChainOfSupportedNodesReachesExactlyK) {
  GraphBuilder b({2, 1e12, 1});
  for (int v = 0; v < 30; ++v) {
    b.node(1 + v % 4, 3, 10);
    if (v > 0) b.edge(v - 1, v, 0.5 * (v % 3));
  }
  const Problem p = b.build();
  for (int target : {1, 7, 29, 30, 40}) {
    ClusterOptions options;
    options.target = target;
    const Clustering c = clusterOperators(p, options);
    EXPECT_EQ(c.units, std::min(target, 30));
    EXPECT_EQ(c.groups, std::min(target, 30));
    checkClustering(p, c, target, "chain, K " + std::to_string(target));
  }
  // Without a target: min(units, max(64, 16 devices' worth)) = all 30.
  EXPECT_EQ(defaultClusterTarget(p), 30);
  EXPECT_EQ(clusterOperators(p, ClusterOptions{}).units, 30);
}

// Diamond a -> {b, c} -> d plus a -> d; a and d are cheapest but merging them would put b and c on
// a cycle. Scores (α = 0.001): (b, d) 11 − 0.005 beats (c, d) 11 − 0.002 and (a, b), (a, c)
// 11 − 0.001; then (a, c) 11 − 0.001 beats (a, {b, d}) 12 − 0.001 and (c, {b, d}) 21 − 0.002.
TEST(Clustering, MergesInScoreOrderAndRefusesACycle) {
  GraphBuilder b;
  const int a = b.node(1, 1), x = b.node(10, 10), y = b.node(10, 10), d = b.node(1, 1);
  b.edge(a, x, 1).edge(a, y, 1).edge(a, d, 1).edge(x, d, 5).edge(y, d, 2);
  const Problem p = b.build();
  ClusterOptions options;
  options.target = 3;
  Clustering c = clusterOperators(p, options);
  EXPECT_EQ(c.group_of, (std::vector<int>{0, 1, 2, 1}));  // {b, d}; a and d stay apart
  EXPECT_EQ(c.units, 3);
  options.target = 2;
  c = clusterOperators(p, options);
  EXPECT_EQ(c.group_of, (std::vector<int>{0, 1, 0, 1}));  // {a, c}, {b, d}
  options.target = 1;
  EXPECT_EQ(clusterOperators(p, options).units, 1);
  // With communication weighing more than compute, the heaviest net goes first: a's (cost 9).
  GraphBuilder heavy;
  for (int v = 0; v < 4; ++v)
    heavy.node(v == 0 || v == 3 ? 1 : 10, 1);
  heavy.edge(a, x, 9).edge(a, y, 9).edge(x, d, 5).edge(y, d, 2);
  options.target = 3;
  options.alpha = 10;
  c = clusterOperators(heavy.build(), options);
  EXPECT_EQ(c.group_of, (std::vector<int>{0, 0, 1, 2}));  // a with b: equal scores, smaller pair first
}

// An input with a cycle between units (no scc pass): a -> b -> c -> a, then c -> p, p -> q -> r,
// p -> r. Units on one cycle may merge ({a, c}: c reaches a already), a merge that would put q on a
// cycle may not ({p, r}, as cheap); {a, c} then takes p.
TEST(Clustering, CyclesOfTheInputStayButNoUnitJoinsANewOne) {
  GraphBuilder b;
  for (double cost : {1, 10, 1, 1, 10, 1})
    b.node(cost, cost);
  b.edge(0, 1, 1).edge(1, 2, 1).edge(2, 0, 1).edge(2, 3, 1).edge(3, 4, 1).edge(4, 5, 1).edge(3, 5, 1);
  const Problem p = b.build();
  ClusterOptions options;
  options.target = 4;
  const Clustering c = clusterOperators(p, options);
  EXPECT_EQ(c.group_of, (std::vector<int>{0, 1, 0, 0, 2, 3}));
  options.target = 1;
  const Clustering all = clusterOperators(p, options);
  EXPECT_EQ(all.units, 1);  // a connected graph without memory limits merges down to one unit
}

TEST(Clustering, EqualScoresGoToTheSmallestPair) {
  GraphBuilder b;
  b.node(2, 2);
  b.node(3, 3);
  b.node(3, 3);
  b.edge(0, 1, 1).edge(0, 2, 1);
  ClusterOptions options;
  options.target = 2;
  EXPECT_EQ(clusterOperators(b.build(), options).group_of, (std::vector<int>{0, 0, 1}));
  // Two apart pairs of equal scores: the one with the smaller first vertex.
  GraphBuilder apart;
  for (double cost : {2, 3, 2, 3})
    apart.node(cost, cost);
  apart.edge(2, 3, 1).edge(0, 1, 1);
  options.target = 3;
  EXPECT_EQ(clusterOperators(apart.build(), options).group_of, (std::vector<int>{0, 0, 1, 2}));
}

TEST(Clustering, NodesThatExceedMemoryTogetherNeverMerge) {
  GraphBuilder b({2, 100, 1});
  b.node(1, 1, 60);
  b.node(1, 1, 60);
  b.node(1, 1, 30);
  b.edge(0, 1, 1).edge(1, 2, 1);
  ClusterOptions options;
  options.target = 1;
  Clustering c = clusterOperators(b.build(), options);
  EXPECT_NE(c.group_of[0], c.group_of[1]);
  EXPECT_EQ(c.group_of[1], c.group_of[2]);  // 90 fits
  EXPECT_EQ(c.units, 2);

  // A weight both read counts once: 30 + 30 + 30 fits, 30 + 30 + 50 does not.
  for (double bytes : {30.0, 50.0}) {
    GraphBuilder shared({2, 100, 1});
    shared.node(1, 1, 30);
    shared.node(1, 1, 30);
    shared.edge(0, 1, 1).sharedWeight(bytes, {0, 1});
    c = clusterOperators(shared.build(), options);
    EXPECT_EQ(c.units, bytes == 30.0 ? 1 : 2) << bytes;
  }
  // A unit over memory on its own stays alone.
  GraphBuilder big({2, 100, 1});
  big.node(1, 1, 150);
  big.node(1, 1, 0);
  big.edge(0, 1, 1);
  EXPECT_EQ(clusterOperators(big.build(), options).units, 2);
}

TEST(Clustering, CpuOnlyOperatorsStayApartFromSupportedOnes) {
  GraphBuilder b;
  for (int v = 0; v < 5; ++v)
    b.node(1, 1);
  b.unsupported(1).unsupported(2);
  b.edge(0, 1, 1).edge(1, 2, 1).edge(2, 3, 1).edge(3, 4, 1);
  ClusterOptions options;
  options.target = 1;
  const Clustering c = clusterOperators(b.build(), options);
  EXPECT_EQ(c.group_of, (std::vector<int>{0, 1, 1, 2, 2}));
  EXPECT_EQ(c.units, 3);
}

TEST(Clustering, OnlyUnitsOnOneDeviceMerge) {
  GraphBuilder b;
  for (int v = 0; v < 6; ++v) {
    b.node(1, 1);
    if (v > 0) b.edge(v - 1, v, 1);
  }
  const Problem p = b.build();
  ClusterOptions options;
  options.target = 1;
  options.device_of = {0, 0, 0, 1, 1, 2};
  EXPECT_EQ(clusterOperators(p, options).group_of, (std::vector<int>{0, 0, 0, 1, 1, 2}));

  // A training unit whose sides a placement splits never merges.
  std::mt19937 rng(5);
  const Problem training = randomContracted(rng, 12, true, {3, 1e9, 1});
  std::vector<int> device_of(24);
  for (int v = 0; v < 24; ++v)
    device_of[v] = v % 12 < 6 ? 0 : 1;
  device_of[12 + 3] = 2;  // the backward partner of forward node 3
  options.device_of = device_of;
  const Clustering c = clusterOperators(training, options);
  for (int v = 0; v < 24; ++v) {
    if (v % 12 != 3) {
      EXPECT_NE(c.group_of[v], c.group_of[3]) << v;
    }
    for (int w = 0; w < 24; ++w) {
      if (c.group_of[v] == c.group_of[w]) {
        EXPECT_EQ(device_of[v % 12], device_of[w % 12]) << v << " " << w;
      }
    }
  }
  checkClustering(training, c, 1, "training, by device", device_of);
}

// A merged unit's two clusters share a class, even where contractGroups would give them different
// ones (the forward cluster's first member's and the backward's), and get a new class where none
// of them has one.
TEST(Clustering, ContractedClustersShareOneColocationClass) {
  GraphBuilder b;
  const int y = b.node(1, 1), z = b.node(1, 1), zb = b.node(2, 2), yb = b.node(2, 2);
  b.colocate(y, 7).colocate(yb, 7).colocate(z, 3).colocate(zb, 3).backward(zb).backward(yb);
  b.edge(y, z, 1).edge(zb, yb, 1).edge(y, yb, 1).edge(z, zb, 1);
  Problem p = b.build();
  ASSERT_TRUE(checkContracted(p).isOk());
  ClusterOptions options;
  options.target = 1;
  Clustering c = clusterOperators(p, options);
  ASSERT_EQ(c.units, 1);
  ASSERT_EQ(c.groups, 2);
  Problem contracted = contractClusters(p, c);
  EXPECT_EQ(contracted.graph[0].colocation, std::optional<int>(7));
  EXPECT_EQ(contracted.graph[1].colocation, std::optional<int>(7));
  EXPECT_TRUE(checkContracted(contracted).isOk());
  // A Clustering put together by hand, without its units: recovered from the input's classes.
  Clustering by_hand{c.group_of, c.groups, c.units, {}};
  contracted = contractClusters(p, by_hand);
  EXPECT_EQ(contracted.graph[0].colocation, std::optional<int>(7));
  EXPECT_EQ(contracted.graph[1].colocation, std::optional<int>(7));

  // A classless forward node with a classless backward one (no partner): one new class.
  GraphBuilder orphan;
  const int f = orphan.node(1, 1), w = orphan.node(1, 1), g = orphan.node(1, 1);
  orphan.colocate(g, 4).backward(w).edge(f, w, 1).edge(g, f, 1);
  p = orphan.build();
  options.target = 2;
  c = clusterOperators(p, options);
  ASSERT_EQ(c.group_of[f] == c.group_of[w], false);  // the two sides are two clusters
  contracted = contractClusters(p, c);
  if (c.units == 2 && c.group_of[g] != c.group_of[f]) {
    const auto cls = contracted.graph[c.group_of[f]].colocation;
    ASSERT_TRUE(cls.has_value());
    EXPECT_EQ(contracted.graph[c.group_of[w]].colocation, cls);
    EXPECT_EQ(*cls, 5);
    EXPECT_TRUE(checkContracted(contracted).isOk());
  } else {
    ADD_FAILURE() << "expected f and w merged, g apart";
  }
}

TEST(Clustering, AnExhaustedBudgetLeavesEveryUnitAlone) {
  for (bool training : {false, true}) {
    std::mt19937 rng(11);
    const Problem p = randomContracted(rng, 60, training, {3, 1e9, 1});
    ClusterOptions options;
    options.target = 4;
    options.budget = Budget(0, nullptr);
    const auto start = std::chrono::steady_clock::now();
    const Clustering c = clusterOperators(p, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(c.units, 60);
    EXPECT_EQ(c.groups, training ? 120 : 60);
    for (Vertex v = 0; v < c.group_of.size(); ++v)
      EXPECT_EQ(c.group_of[v], static_cast<int>(v));
    EXPECT_LT(seconds, 1.0);
    // A stop flag that is set stops it just the same.
    std::atomic<bool> stop{true};
    options.budget = Budget::unlimited(&stop);
    EXPECT_EQ(clusterOperators(p, options).units, 60);
  }
}

TEST(ClusterPass, ArgumentIsAPositiveNumberOfClusters) {
  PassRegistry registry;
  registerBuiltinPasses(registry);
  EXPECT_TRUE(registry.create("cluster", "").hasValue());
  EXPECT_TRUE(registry.create("cluster", "12").hasValue());
  for (const char* bad : {"0", "-3", "x", "5x", " 5", "1e3", "99999999999"}) {
    auto pass = registry.create("cluster", bad);
    ASSERT_FALSE(pass.hasValue()) << bad;
    EXPECT_EQ(pass.status().code(), StatusCode::Unsupported);
    EXPECT_NE(pass.status().message().find(std::string("'") + bad + "'"), std::string::npos)
        << pass.status().message();
  }
}

TEST(ClusterPass, ReadsTheTargetFromTheOptionsAndReportsALossyMapping) {
  GraphBuilder b({2, 1e12, 1});
  for (int v = 0; v < 12; ++v) {
    b.node(1, 2);
    if (v > 0) b.edge(v - 1, v, 1);
  }
  Problem p = b.build();
  PassOptions options;
  options.solver.cluster_target = 5;
  PipelineState state;
  ClusterPass pass;
  auto result = applyPass(pass, p, options, state);
  ASSERT_TRUE(result.hasValue()) << result.status().message();
  EXPECT_TRUE(result->changed);
  EXPECT_EQ(boost::num_vertices(p.graph), 5u);
  ASSERT_TRUE(result->mapping.has_value());
  EXPECT_FALSE(result->mapping->exact);
  EXPECT_TRUE(state.lossy());
  EXPECT_EQ(result->note, "12 -> 5 clusters, alpha 0.001");

  // Nothing to merge: unchanged, an exact identity mapping.
  ClusterPass again(5);
  PipelineState fresh;
  result = applyPass(again, p, options, fresh);
  ASSERT_TRUE(result.hasValue());
  EXPECT_FALSE(result->changed);
  ASSERT_TRUE(result->mapping.has_value());
  EXPECT_TRUE(result->mapping->exact);
  EXPECT_EQ(result->mapping->new_of_old, (std::vector<Vertex>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(fresh.lossy());
}

// The clustered DP's split, on the original nodes: valid, its value recomputed, never better than the
// exact DP's, marked lossy, and without a certificate (certify gives none after a lossy mapping).
// Counts the instance in `checked` unless it is infeasible itself (unsupported nodes that no CPU
// block can hold).
void checkClusteredPipeline(const Problem& original, int target, const std::string& label, int& checked) {
  SCOPED_TRACE(label);
  const std::string reductions = kReductions;
  auto exact = runPipeline(original, reductions + ",partition=dp,certify,expand");
  if (!exact.hasValue() && exact.status().code() == StatusCode::Infeasible) return;
  ++checked;
  ASSERT_TRUE(exact.hasValue()) << exact.status().message();
  ASSERT_EQ(exact->solve.status, SolveStatus::Optimal);
  EXPECT_FALSE(exact->lossy);
  const std::string pipeline =
      reductions + ",cluster=" + std::to_string(target) + ",partition=dp,certify,expand";
  PassOptions options;
  options.verify_each = true;  // the graph invariants after every pass, the cluster pass's included
  auto clustered = runPipeline(original, pipeline, options);
  ASSERT_TRUE(clustered.hasValue()) << clustered.status().message();
  const SolveResult& solve = clustered->solve;
  Status verified = verify(original, solve.placement);
  EXPECT_TRUE(verified.isOk()) << verified.message();
  EXPECT_NEAR(evaluateThroughput(original, solve.placement.device_of).max_load, solve.value,
              1e-9 * std::max(1.0, solve.value));
  EXPECT_GE(solve.value, exact->solve.value * (1 - 1e-9));
  EXPECT_TRUE(clustered->lossy);
  EXPECT_TRUE(solve.certificate.method.empty());
  EXPECT_EQ(solve.certificate.ratio(), kInfinity);  // nothing proven about the original
  auto record = [&](const std::string& name) {
    return std::find_if(clustered->log.begin(), clustered->log.end(),
                        [&](const PassRecord& r) { return r.name == name; });
  };
  ASSERT_NE(record("cluster"), clustered->log.end());
  EXPECT_LE(record("cluster")->nodes_after, record("cluster")->nodes_before);
  ASSERT_NE(record("certify"), clustered->log.end());
  EXPECT_EQ(record("certify")->note, "no certificate: a lossy reduction ran before partition");
  if (record("cluster")->nodes_after < record("cluster")->nodes_before) {
    EXPECT_TRUE(record("cluster")->lossy);
  }
}

TEST(ClusterPass, PipelineOnRandomProblemsGivesValidSplitsNoBetterThanTheExactDp) {
  int checked = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    const int n = 10 + static_cast<int>(seed * 7 % 13);
    const Problem p = randomContracted(rng, n, seed % 2 == 0, {3, 1000, 2});
    checkClusteredPipeline(p, 4 + static_cast<int>(seed % 5), "seed " + std::to_string(seed), checked);
  }
  EXPECT_GE(checked, 8);
}

TEST(ClusterPass, PipelineOnTable1WorkloadsGivesValidSplitsNoBetterThanTheExactDp) {
  for (const char* workload : {"throughput-inputs/OperatorGraphs/bert_l-3_inference.json",
                               "throughput-inputs/LayerGraphs/resnet50_training.json"}) {
    int checked = 0;
    checkClusteredPipeline(loadWorkload(workload), 20, workload, checked);
    EXPECT_EQ(checked, 1);
  }
}

// Prints how long the clustering of the largest Table 1 workload and of a training graph of 4,000
// vertices take (no bound asserted: the sanitizer builds are slower by an order of magnitude).
TEST(Clustering, TimeOnLargeGraphs) {
  std::mt19937 rng(3);
  Problem random = randomContracted(rng, 2000, true, {4, 1e12, 2});
  for (Vertex v = 0; v < boost::num_vertices(random.graph); ++v) {
    OpNode& node = random.graph[v];
    if (!node.supportedOnAccelerator()) node.p_acc = node.p_cpu;  // else CPU-only units stay apart
  }
  const std::vector<std::pair<std::string, Problem>> problems = {
      {"op BERT-12 training", reduced("throughput-inputs/OperatorGraphs/bert_L-12_training.json")},
      {"random training", std::move(random)}};
  for (const auto& [name, p] : problems) {
    ClusterOptions options;
    const auto start = std::chrono::steady_clock::now();
    const Clustering c = clusterOperators(p, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << name << ": " << boost::num_vertices(p.graph) << " vertices, " << countClusterUnits(p)
              << " units -> " << c.units << " in " << seconds << " s\n";
    EXPECT_EQ(c.units, defaultClusterTarget(p)) << name;
  }
}

}  // namespace clustering_test
}  // namespace placer::testing
