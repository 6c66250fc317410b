// The single-sample latency evaluator (Tarnawski et al. 2020, §4): hand-computed latencies on tiny
// graphs, deadlocks, violations, and every placement of small random DAGs against an independent
// discrete-event simulation written from the paper's formulas.
#include "core/latency.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/evaluate.h"
#include "tests/graph_builder.h"

namespace placer::testing {
namespace latency_test {

LatencyEvaluation evaluateOk(const Problem& problem, const std::vector<int>& device_of) {
  Expected<LatencyEvaluation> e = evaluateLatency(problem, device_of);
  EXPECT_TRUE(e.hasValue()) << e.status().message();
  return e.hasValue() ? *e : LatencyEvaluation{};
}

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& s : lines)
    all += s + "\n";
  return all;
}

TEST(Latency, ChainAcrossTwoAccelerators) {
  GraphBuilder g({2, 100, 1});
  int a = g.node(1, 10), b = g.node(2, 20), c = g.node(3, 30), d = g.node(4, 40);
  g.edge(a, b, 0.5).edge(b, c, 0.25).edge(c, d, 0.125);
  LatencyEvaluation e = evaluateOk(g.build(), {0, 0, 1, 1});
  ASSERT_EQ(e.subgraphs.size(), 2u);
  const LatencySubgraph& s0 = e.subgraphs[0];
  EXPECT_EQ(s0.device, 0);
  EXPECT_EQ(s0.nodes, (std::vector<Vertex>{0, 1}));
  EXPECT_DOUBLE_EQ(s0.start, 0);
  EXPECT_DOUBLE_EQ(s0.comm_in, 0);
  EXPECT_DOUBLE_EQ(s0.compute, 3);
  EXPECT_DOUBLE_EQ(s0.comm_out, 0.25);  // b's output; a -> b stays on the device
  EXPECT_DOUBLE_EQ(s0.finish, 3.25);
  const LatencySubgraph& s1 = e.subgraphs[1];
  EXPECT_EQ(s1.device, 1);
  EXPECT_DOUBLE_EQ(s1.ready, 3.25);
  EXPECT_DOUBLE_EQ(s1.start, 3.25);
  EXPECT_DOUBLE_EQ(s1.comm_in, 0.25);
  EXPECT_DOUBLE_EQ(s1.compute, 7);
  EXPECT_DOUBLE_EQ(s1.comm_out, 0);
  EXPECT_DOUBLE_EQ(s1.finish, 10.5);
  EXPECT_EQ(e.finish, (std::vector<double>{3.25, 3.25, 10.5, 10.5}));
  EXPECT_EQ(e.subgraph_of, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(e.latency, 10.5);
  EXPECT_TRUE(e.valid());
}

TEST(Latency, ParallelBranchesOnCpusRunAtOnce) {
  GraphBuilder g({1, 100, 2});
  int s = g.node(0.5, 1), x = g.node(0.5, 5), y = g.node(0.5, 3), t = g.node(0.5, 2);
  g.edge(s, x, 1).edge(s, y, 1).edge(x, t, 1).edge(y, t, 4);
  // Which CPU core a node is on does not matter: enough cores for every branch.
  for (const std::vector<int>& cpus : {std::vector<int>{1, 1, 1, 1}, std::vector<int>{1, 2, 1, 2}}) {
    LatencyEvaluation e = evaluateOk(g.build(), cpus);
    EXPECT_TRUE(e.subgraphs.empty());
    EXPECT_EQ(e.finish, (std::vector<double>{1, 6, 4, 8}));
    EXPECT_DOUBLE_EQ(e.latency, 8);
  }
  // y on the accelerator: it waits for s, pays s's output in and its own (4) out.
  LatencyEvaluation e = evaluateOk(g.build(), {1, 2, 0, 1});
  ASSERT_EQ(e.subgraphs.size(), 1u);
  EXPECT_DOUBLE_EQ(e.subgraphs[0].ready, 1);
  EXPECT_DOUBLE_EQ(e.subgraphs[0].finish, 1 + 1 + 0.5 + 4);
  EXPECT_DOUBLE_EQ(e.finish[t], 6.5 + 2);
  EXPECT_DOUBLE_EQ(e.latency, 8.5);
}

TEST(Latency, NonContiguousAcceleratorRunsItsPiecesInLevelOrder) {
  // a -> x -> b and c -> b; a, b, c on accelerator 0 and x on the CPU. {a, b, c} is not contiguous
  // (a -> x -> b leaves the device), so it runs as {a, c} and then {b}; c's output goes through
  // CPU memory like any other.
  GraphBuilder g({1, 100, 1});
  int a = g.node(1, 10), x = g.node(10, 1), b = g.node(3, 30), c = g.node(2, 20);
  g.edge(a, x, 1).edge(x, b, 2).edge(c, b, 4);
  LatencyEvaluation e = evaluateOk(g.build(), {0, 1, 0, 0});
  ASSERT_EQ(e.subgraphs.size(), 2u);
  const LatencySubgraph& first = e.subgraphs[0];
  const LatencySubgraph& second = e.subgraphs[1];
  EXPECT_EQ(first.piece, 0);
  EXPECT_EQ(first.nodes, (std::vector<Vertex>{static_cast<Vertex>(a), static_cast<Vertex>(c)}));
  EXPECT_DOUBLE_EQ(first.compute, 3);
  EXPECT_DOUBLE_EQ(first.comm_out, 1 + 4);
  EXPECT_DOUBLE_EQ(first.finish, 8);
  EXPECT_DOUBLE_EQ(e.finish[x], 9);
  EXPECT_EQ(second.piece, 1);
  EXPECT_EQ(second.device, 0);
  EXPECT_EQ(second.nodes, (std::vector<Vertex>{static_cast<Vertex>(b)}));
  EXPECT_DOUBLE_EQ(second.ready, 9);
  EXPECT_GE(second.start, first.finish);
  EXPECT_DOUBLE_EQ(second.start, 9);
  EXPECT_DOUBLE_EQ(second.comm_in, 2 + 4);
  EXPECT_DOUBLE_EQ(second.finish, 18);
  EXPECT_DOUBLE_EQ(e.latency, 18);
  EXPECT_DOUBLE_EQ(e.memory[0], 0);
}

TEST(Latency, NetIsPaidOnceWhateverTheNumberOfConsumers) {
  GraphBuilder g({2, 100, 1});
  int a = g.node(1, 1), b = g.node(1, 1), c = g.node(2, 2);
  g.edge(a, b, 3).edge(a, c, 3);
  // a on the CPU feeds b and c on accelerator 0: one transfer in.
  LatencyEvaluation e = evaluateOk(g.build(), {2, 0, 0});
  ASSERT_EQ(e.subgraphs.size(), 1u);
  EXPECT_DOUBLE_EQ(e.subgraphs[0].comm_in, 3);
  EXPECT_DOUBLE_EQ(e.latency, 1 + 3 + 3);
  // a on accelerator 0 feeds b and c on CPUs: one transfer out.
  e = evaluateOk(g.build(), {0, 2, 2});
  EXPECT_DOUBLE_EQ(e.subgraphs[0].comm_out, 3);
  EXPECT_EQ(e.finish, (std::vector<double>{4, 5, 6}));
  // b and c on two different accelerators: each pays it in, a pays it out once.
  e = evaluateOk(g.build(), {2, 0, 1});
  EXPECT_DOUBLE_EQ(e.subgraphs[0].comm_in, 3);
  EXPECT_DOUBLE_EQ(e.subgraphs[1].comm_in, 3);
  e = evaluateOk(g.build(), {0, 1, 1});
  EXPECT_DOUBLE_EQ(e.subgraphs[0].comm_out, 3);
  EXPECT_DOUBLE_EQ(e.subgraphs[1].comm_in, 3);
  EXPECT_DOUBLE_EQ(e.latency, 1 + 3 + 3 + 3);
}

TEST(Latency, DifferingEdgeCostsAreSeparateTransfers) {
  GraphBuilder g({2, 100, 0});
  int a = g.node(1, 1), b = g.node(1, 1), c = g.node(1, 1);
  g.edge(a, b, 0.25).edge(a, c, 0.75);
  LatencyEvaluation e = evaluateOk(g.build(), {0, 1, 1});
  EXPECT_DOUBLE_EQ(e.subgraphs[0].comm_out, 1);
  EXPECT_DOUBLE_EQ(e.subgraphs[1].comm_in, 1);
  EXPECT_DOUBLE_EQ(e.latency, 1 + 1 + 1 + 2);
}

TEST(Latency, SubgraphsWaitingForEachOtherAreADeadlock) {
  // p1 -> q1 and q2 -> p2: {p1, p2} and {q1, q2} are each contiguous, but each needs the other's
  // output before it can start.
  GraphBuilder g({2, 100, 1});
  int p1 = g.node(1, 1), p2 = g.node(1, 1), q1 = g.node(1, 1), q2 = g.node(1, 1);
  g.edge(p1, q1, 1).edge(q2, p2, 1);
  Expected<LatencyEvaluation> e = evaluateLatency(g.build(), {0, 0, 1, 1});
  ASSERT_FALSE(e.hasValue());
  EXPECT_EQ(e.status().code(), StatusCode::Infeasible);
  const std::string& m = e.status().message();
  EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find("accelerator 0 subgraph 1 of 1"), std::string::npos) << m;
  EXPECT_NE(m.find("accelerator 1 subgraph 1 of 1"), std::string::npos) << m;
  // The same nodes split the other way round are fine.
  EXPECT_TRUE(evaluateLatency(g.build(), {0, 1, 0, 1}).hasValue());
  // verifyLatency rejects it too.
  EXPECT_FALSE(verifyLatency(g.build(), Placement{{0, 0, 1, 1}, {}, 2}).isOk());
}

TEST(Latency, DeadlockThroughCpusAndSeveralPiecesIsNamed) {
  // a0 -> x -> a2 -> b1 and b0 -> y -> b2 -> a1, with x and y on the CPU: accelerator 0 runs {a0, a1}
  // then {a2}, accelerator 1 runs {b0, b1} then {b2}, and {a0, a1} needs b2, which needs y, which
  // needs {b0, b1}, which needs a2, which needs x, which needs {a0, a1}.
  GraphBuilder g({2, 100, 1});
  int a0 = g.node(1, 1, 0, "a0"), a1 = g.node(1, 1, 0, "a1"), a2 = g.node(1, 1, 0, "a2");
  int b0 = g.node(1, 1, 0, "b0"), b1 = g.node(1, 1, 0, "b1"), b2 = g.node(1, 1, 0, "b2");
  int x = g.node(1, 1, 0, "x"), y = g.node(1, 1, 0, "y");
  g.edge(a0, x, 1).edge(x, a2, 1).edge(a2, b1, 1).edge(b0, y, 1).edge(y, b2, 1).edge(b2, a1, 1);
  Expected<LatencyEvaluation> e = evaluateLatency(g.build(), {0, 0, 0, 1, 1, 1, 2, 2});
  ASSERT_FALSE(e.hasValue());
  const std::string& m = e.status().message();
  for (const char* part :
       {"accelerator 0 subgraph 1 of 2", "accelerator 0 subgraph 2 of 2", "accelerator 1 subgraph 1 of 2",
        "accelerator 1 subgraph 2 of 2", "\"x\" (cpu 0)", "\"y\" (cpu 0)"}) {
    EXPECT_NE(m.find(part), std::string::npos) << part << " in " << m;
  }
}

TEST(Latency, ViolationsAreNamedWithoutThePipelineRule) {
  GraphBuilder g({2, 10, 1});
  int a = g.node(1, 1, 8), b = g.node(1, 1, 8), c = g.node(1, 1);
  g.edge(a, b, 1).edge(b, c, 1).unsupported(c).colocate(a, 7).colocate(c, 7);
  LatencyEvaluation e = evaluateOk(g.build(), {0, 0, 0});
  ASSERT_EQ(e.violations.size(), 2u) << joined(e.violations);
  EXPECT_NE(joined(e.violations).find("not supported"), std::string::npos);
  EXPECT_NE(joined(e.violations).find("more than"), std::string::npos);
  EXPECT_EQ(e.latency, kInfinity);  // the unsupported node takes forever on the accelerator
  EXPECT_DOUBLE_EQ(e.memory[0], 16);

  e = evaluateOk(g.build(), {0, 1, 2});
  ASSERT_EQ(e.violations.size(), 1u) << joined(e.violations);
  EXPECT_NE(e.violations[0].find("colocation class 7"), std::string::npos);

  // a(0) -> b(1) -> c(0): a cyclic pipeline for throughput, but a fine latency placement (the
  // accelerator runs {a} and then {c}).
  GraphBuilder h({2, 100, 1});
  int u = h.node(1, 1), v = h.node(1, 1), w = h.node(1, 1);
  h.edge(u, v, 1).edge(v, w, 1);
  EXPECT_FALSE(splitViolations(h.build(), {0, 1, 0}).empty());
  e = evaluateOk(h.build(), {0, 1, 0});
  EXPECT_TRUE(e.valid()) << joined(e.violations);
  ASSERT_EQ(e.subgraphs.size(), 3u);
  EXPECT_DOUBLE_EQ(e.latency, (1 + 1) + (1 + 1 + 1) + (1 + 1));  // {a}, then b, then {c}
}

TEST(Latency, BadPlacementsAreErrors) {
  GraphBuilder g({1, 100, 1});
  int a = g.node(1, 1), b = g.node(1, 1);
  g.edge(a, b, 1);
  EXPECT_EQ(evaluateLatency(g.build(), {0, 2}).status().code(), StatusCode::InvalidInput);
  EXPECT_EQ(evaluateLatency(g.build(), {0, -1}).status().code(), StatusCode::InvalidInput);
  EXPECT_EQ(evaluateLatency(g.build(), {0}).status().code(), StatusCode::InvalidInput);
  g.edge(b, a, 1);
  Expected<LatencyEvaluation> cyclic = evaluateLatency(g.build(), {1, 1});
  EXPECT_EQ(cyclic.status().code(), StatusCode::InvalidInput);
  EXPECT_NE(cyclic.status().message().find("cycle"), std::string::npos);
  EXPECT_DOUBLE_EQ(evaluateOk(GraphBuilder({1, 1, 1}).build(), {}).latency, 0);
}

TEST(Latency, VerifyChecksValueAndValidity) {
  GraphBuilder g({2, 10, 1});
  int a = g.node(1, 10, 6), b = g.node(2, 20, 6);
  g.edge(a, b, 0.5);
  const Problem p = g.build();
  EXPECT_TRUE(verifyLatency(p, Placement{{0, 1}, {0, 1}, 1 + 0.5 + 0.5 + 2}).isOk());
  EXPECT_TRUE(verifyLatency(p, Placement{{0, 1}, {}, 4}).isOk());
  Status wrong = verifyLatency(p, Placement{{0, 1}, {0, 1}, 3.9});
  EXPECT_FALSE(wrong.isOk());
  EXPECT_NE(wrong.message().find("recomputes to 4"), std::string::npos) << wrong.message();
  Status memory = verifyLatency(p, Placement{{0, 0}, {0, 0}, 3});
  EXPECT_NE(memory.message().find("more than"), std::string::npos) << memory.message();
  EXPECT_FALSE(verifyLatency(p, Placement{{0, 1}, {0}, 4}).isOk());
  EXPECT_FALSE(verifyLatency(p, Placement{{0, 5}, {0, 1}, 4}).isOk());
}

// ---------------------------------------------------------------------------------------------
// Every placement of small random DAGs against an independent computation.
//
// The reference below is written from the paper's formulas, not from the evaluator: node i's edges
// all cost c_i (so in(S) = sum of c_u over u outside S with an edge into S, out(S) = sum of c_u over
// u in S with an edge leaving S); pieces come from the transitive closure (level(v) = 1 + the
// largest level of a same-device u from which a path through another device reaches v); and times
// come from a discrete-event simulation with a global clock, in which an accelerator starts its next
// piece once the previous one is done and the piece's inputs have arrived, and a CPU node starts as
// soon as its inputs have arrived.

struct RandomDag {
  int n = 0;
  std::vector<double> p_acc, p_cpu, cost;
  std::vector<std::pair<int, int>> edges;  // i < j, so index order is topological
  Problem problem;
};

RandomDag randomDag(unsigned seed, int n, int accelerators) {
  std::mt19937 rng(seed);
  auto eighths = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng) / 8.0; };
  RandomDag dag;
  dag.n = n;
  GraphBuilder g({accelerators, 1e18, 1});
  for (int i = 0; i < n; ++i) {
    dag.p_acc.push_back(eighths(1, 16));
    dag.p_cpu.push_back(eighths(1, 48));
    dag.cost.push_back(eighths(0, 24));
    g.node(dag.p_acc.back(), dag.p_cpu.back());
  }
  std::bernoulli_distribution has_edge(0.35);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (!has_edge(rng)) continue;
      dag.edges.emplace_back(i, j);
      g.edge(i, j, dag.cost[i]);
    }
  }
  dag.problem = g.build();
  return dag;
}

struct Reference {
  bool deadlock = false;
  std::vector<double> finish;
  std::vector<std::vector<int>> pieces;  // (device, piece) -> nodes, by device then level
  std::vector<int> piece_of;             // per node, -1 on the CPU
};

// reach[u][v]: a path of one edge or more leads from u to v.
std::vector<std::vector<bool>> reachability(const RandomDag& dag) {
  const int n = dag.n;
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (auto [u, v] : dag.edges)
    reach[u][v] = true;
  for (int m = 0; m < n; ++m)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (reach[i][m] && reach[m][j]) reach[i][j] = true;
  return reach;
}

// Each accelerator's nodes in levels: a node is one level above every node of its device from which a
// path leaves the device and comes back to it. One piece per (device, level), by device then level.
void levelPieces(const std::vector<std::vector<bool>>& reach, const std::vector<int>& device_of,
                 int accelerators, Reference& ref, std::vector<int>& piece_device,
                 std::vector<int>& piece_level) {
  const int n = static_cast<int>(device_of.size());
  ref.piece_of.assign(n, -1);
  for (int d = 0; d < accelerators; ++d) {
    std::vector<int> level(n, 0);
    int levels = 0;
    for (int v = 0; v < n; ++v) {
      if (device_of[v] != d) continue;
      level[v] = 1;
      for (int u = 0; u < v; ++u) {
        if (device_of[u] != d) continue;
        for (int w = 0; w < n; ++w) {
          if (device_of[w] != d && reach[u][w] && reach[w][v]) level[v] = std::max(level[v], level[u] + 1);
        }
      }
      levels = std::max(levels, level[v]);
    }
    const int first = static_cast<int>(ref.pieces.size());
    for (int l = 1; l <= levels; ++l) {
      ref.pieces.emplace_back();
      piece_device.push_back(d);
      piece_level.push_back(l);
    }
    for (int v = 0; v < n; ++v) {
      if (device_of[v] == d) {
        ref.piece_of[v] = first + level[v] - 1;
        ref.pieces[ref.piece_of[v]].push_back(v);
      }
    }
  }
}

// What the simulation runs: the pieces, then one job per CPU node.
struct Jobs {
  int pieces = 0;
  std::vector<std::vector<int>> members;
  std::vector<int> job_of;             // per node
  std::vector<double> duration;        // a piece's compute and transfers in and out; a CPU node's time
  std::vector<std::set<int>> inputs;   // the jobs of nodes outside it with an edge in
};

Jobs makeJobs(const RandomDag& dag, const Reference& ref) {
  const int n = dag.n;
  std::vector<std::vector<int>> preds(n), succs(n);
  for (auto [u, v] : dag.edges) {
    preds[v].push_back(u);
    succs[u].push_back(v);
  }
  Jobs jobs;
  jobs.pieces = static_cast<int>(ref.pieces.size());
  jobs.members = ref.pieces;
  jobs.job_of.resize(n);
  for (int v = 0; v < n; ++v) {
    if (ref.piece_of[v] >= 0) {
      jobs.job_of[v] = ref.piece_of[v];
    } else {
      jobs.job_of[v] = static_cast<int>(jobs.members.size());
      jobs.members.push_back({v});
    }
  }
  const int count = static_cast<int>(jobs.members.size());
  jobs.duration.assign(count, 0);
  jobs.inputs.resize(count);
  for (int j = 0; j < count; ++j) {
    const std::vector<int>& members = jobs.members[j];
    std::set<int> in(members.begin(), members.end());
    if (j >= jobs.pieces) {
      jobs.duration[j] = dag.p_cpu[members[0]];
    } else {
      std::set<int> senders, leaving;
      for (int v : members) {
        jobs.duration[j] += dag.p_acc[v];
        for (int u : preds[v])
          if (!in.count(u)) senders.insert(u);
        for (int w : succs[v])
          if (!in.count(w)) leaving.insert(v);
      }
      for (int u : senders)
        jobs.duration[j] += dag.cost[u];
      for (int v : leaving)
        jobs.duration[j] += dag.cost[v];
    }
    for (int v : members)
      for (int u : preds[v])
        if (jobs.job_of[u] != j) jobs.inputs[j].insert(jobs.job_of[u]);
  }
  return jobs;
}

// Event simulation: a job starts once its inputs are done, a piece also once its device is free and
// its device's previous level is done. Each job's end, or -1 for the jobs that never start.
std::vector<double> runJobs(const Jobs& jobs, const std::vector<int>& piece_device,
                            const std::vector<int>& piece_level, int accelerators) {
  const int count = static_cast<int>(jobs.members.size());
  std::vector<double> done_at(count, -1);
  std::vector<bool> started(count, false);
  std::vector<bool> busy(accelerators, false);
  using Event = std::pair<double, int>;  // (time, job) of a completion
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  double now = 0;
  auto startReady = [&] {
    for (int j = 0; j < count; ++j) {
      if (started[j]) continue;
      const std::set<int>& inputs = jobs.inputs[j];
      bool inputs_done = std::all_of(inputs.begin(), inputs.end(), [&](int i) { return done_at[i] >= 0; });
      if (!inputs_done) continue;
      if (j < jobs.pieces) {
        const int d = piece_device[j];
        bool previous_done = piece_level[j] == 1 || done_at[j - 1] >= 0;
        if (busy[d] || !previous_done) continue;
        busy[d] = true;
      }
      started[j] = true;
      events.emplace(now + jobs.duration[j], j);
    }
  };
  startReady();
  while (!events.empty()) {
    auto [time, j] = events.top();
    events.pop();
    now = time;
    done_at[j] = time;
    if (j < jobs.pieces) busy[piece_device[j]] = false;
    startReady();
  }
  return done_at;
}

Reference simulate(const RandomDag& dag, const std::vector<int>& device_of, int accelerators) {
  Reference ref;
  std::vector<int> piece_device, piece_level;
  levelPieces(reachability(dag), device_of, accelerators, ref, piece_device, piece_level);
  const Jobs jobs = makeJobs(dag, ref);
  const std::vector<double> done_at = runJobs(jobs, piece_device, piece_level, accelerators);
  if (std::any_of(done_at.begin(), done_at.end(), [](double t) { return t < 0; })) {
    ref.deadlock = true;
    return ref;
  }
  ref.finish.resize(dag.n);
  for (int v = 0; v < dag.n; ++v)
    ref.finish[v] = done_at[jobs.job_of[v]];
  return ref;
}

bool contiguous(const RandomDag& dag, const std::vector<Vertex>& set) {
  const int n = dag.n;
  const std::vector<std::vector<bool>> reach = reachability(dag);
  std::vector<bool> in(n, false);
  for (Vertex v : set)
    in[v] = true;
  for (int u = 0; u < n; ++u)
    for (int w = 0; w < n; ++w)
      for (int x = 0; x < n; ++x)
        if (in[u] && !in[w] && in[x] && reach[u][w] && reach[w][x]) return false;
  return true;
}

double longestCpuPath(const RandomDag& dag) {
  std::vector<double> end(dag.n, 0);
  for (int v = 0; v < dag.n; ++v) {
    double start = 0;
    for (auto [a, b] : dag.edges)
      if (b == v) start = std::max(start, end[a]);
    end[v] = start + dag.p_cpu[v];
  }
  return dag.n == 0 ? 0 : *std::max_element(end.begin(), end.end());
}

TEST(LatencyBruteForce, EveryPlacementMatchesAnEventSimulation) {
  constexpr int kAccelerators = 2, kDevices = 3;  // two accelerators and a CPU
  int placements = 0, deadlocks = 0, split = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    const int n = 6 + static_cast<int>(seed % 4);
    RandomDag dag = randomDag(seed, n, kAccelerators);
    const Problem& problem = dag.problem;
    std::vector<int> device_of(n, 0);
    for (;;) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      ++placements;
      Expected<LatencyEvaluation> got = evaluateLatency(problem, device_of);
      Reference ref = simulate(dag, device_of, kAccelerators);
      ASSERT_EQ(!got.hasValue(), ref.deadlock) << got.status().message();
      if (!got.hasValue()) {
        ++deadlocks;
        EXPECT_EQ(got.status().code(), StatusCode::Infeasible);
      } else {
        const LatencyEvaluation& e = *got;
        ASSERT_EQ(e.subgraphs.size(), ref.pieces.size());
        for (std::size_t s = 0; s < e.subgraphs.size(); ++s) {
          const LatencySubgraph& sub = e.subgraphs[s];
          EXPECT_EQ(std::vector<int>(sub.nodes.begin(), sub.nodes.end()), ref.pieces[s]);
          EXPECT_TRUE(contiguous(dag, sub.nodes));
          EXPECT_DOUBLE_EQ(sub.finish, sub.start + sub.comm_in + sub.compute + sub.comm_out);
          EXPECT_GE(sub.start, sub.ready);
          if (sub.piece > 0) {
            EXPECT_GE(sub.start, e.subgraphs[s - 1].finish);
            ++split;
          }
        }
        double latency = 0;
        for (int v = 0; v < n; ++v) {
          EXPECT_NEAR(e.finish[v], ref.finish[v], 1e-9) << "node " << v;
          latency = std::max(latency, ref.finish[v]);
        }
        EXPECT_NEAR(e.latency, latency, 1e-9);
        for (auto [u, v] : dag.edges) {
          EXPECT_GE(e.finish[v], e.finish[u] + (device_of[v] == kAccelerators ? dag.p_cpu[v] : 0));
        }
        EXPECT_TRUE(e.valid());
      }
      if (::testing::Test::HasFailure()) return;
      int i = 0;
      while (i < n && ++device_of[i] == kDevices)
        device_of[i++] = 0;
      if (i == n) break;
    }
    // Invariants that need no simulation.
    EXPECT_DOUBLE_EQ(evaluateOk(problem, std::vector<int>(n, kAccelerators)).latency, longestCpuPath(dag));
    double all_acc = 0;
    for (double p : dag.p_acc)
      all_acc += p;
    EXPECT_DOUBLE_EQ(evaluateOk(problem, std::vector<int>(n, 1)).latency, all_acc);
  }
  // The sample must exercise what it claims to.
  EXPECT_GT(deadlocks, 0);
  EXPECT_GT(split, 0);
  EXPECT_GT(placements, 30000);
}

}  // namespace latency_test
}  // namespace placer::testing
