#include "solvers/latency_model.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

namespace placer {

using mip::LinExpr;
using mip::Var;

namespace {

using EdgeSet = std::set<std::pair<Vertex, Vertex>>;

// Node v on accelerator a, X(v, a) in the comments: the sum of its slots' variables.
LinExpr onAccelerator(const VarGrid& x, Vertex v, int a, int q) {
  LinExpr e;
  for (int j = a * q + 1; j <= (a + 1) * q; ++j)
    e += term(x, v, j);
  return e;
}

// The program's times, in units of H (LatencyModelInput::unit): when each node's output is ready,
// when each slot starts and finishes, and TotalLatency.
struct SlotTimes {
  std::vector<Var> latency, start, finish;  // per node; per slot (column), slot 0 unused
  Var total;
};

SlotTimes addTimeVariables(mip::Model& m, std::size_t n, const LatencyModelInput& in) {
  auto t = [unit = in.unit](double time) { return time / unit; };
  SlotTimes times;
  times.latency.resize(n);
  times.start.resize(in.columns);
  times.finish.resize(in.columns);
  for (Vertex v = 0; v < n; ++v) {
    times.latency[v] = m.addContinuous(std::min(t(in.head[v]), 1.0), 1.0, "Latency_" + std::to_string(v));
  }
  for (int j = 1; j < in.columns; ++j) {
    times.start[j] = m.addContinuous(0, 1.0, "SubgraphStart_" + std::to_string(j));
    times.finish[j] = m.addContinuous(0, 1.0, "SubgraphFinish_" + std::to_string(j));
  }
  times.total = m.addContinuous(std::min(t(in.floor), 1.0), 1.0, "TotalLatency");
  return times;
}

// The graph's edges, each once, without self-loops.
EdgeSet distinctEdges(const OpGraph& g) {
  EdgeSet edges;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const Vertex u = boost::source(*it, g), v = boost::target(*it, g);
    if (u != v) edges.emplace(u, v);
  }
  return edges;
}

void addColocationRows(mip::Model& m, const LatencyModelInput& in, const VarGrid& x, int k) {
  const int q = in.q;
  // §4.1: colocated nodes share the CPU or an accelerator, not necessarily a slot.
  if (q > 1) {
    for (const auto& [cls, members] : in.classes) {
      for (std::size_t i = 1; i < members.size(); ++i) {
        const Vertex u = members[i - 1], v = members[i];
        m.addEq(term(x, u, 0), term(x, v, 0), "coloc_cpu");
        for (int a = 0; a < k; ++a)
          m.addEq(onAccelerator(x, u, a, q), onAccelerator(x, v, a, q), "coloc_acc");
      }
    }
  }
}

void addSlotMemoryRows(mip::Model& m, const Problem& problem, const VarGrid& x, int q) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const std::size_t n = boost::num_vertices(g);
  const int k = devices.accelerators;
  // (3*) memory per accelerator over its slots, in units of its memory (its kind's).
  if (devices.memory > 0) {
    for (int a = 0; a < k; ++a) {
      const double memory = devices.memoryOf(a);
      LinExpr used;
      for (Vertex v = 0; v < n; ++v) {
        if (g[v].memory > 0) used += (g[v].memory / memory) * onAccelerator(x, v, a, q);
      }
      // A shared weight once per accelerator holding any of its readers (held >= each reader there).
      for (std::size_t w = 0; w < problem.weights.size(); ++w) {
        const SharedWeight& weight = problem.weights[w];
        if (weight.bytes <= 0) continue;
        const Var held = m.addContinuous(0, 1, "held_" + std::to_string(w) + "_" + std::to_string(a));
        for (Vertex r : weight.readers) {
          LinExpr on_a = onAccelerator(x, r, a, q);
          if (!on_a.terms().empty()) m.addLe(on_a, held, "holds");
        }
        used += (weight.bytes / memory) * LinExpr(held);
      }
      if (!used.terms().empty()) m.addLe(used, 1.0, "memory_" + std::to_string(a));
    }
  }
}

void addDurationRows(mip::Model& m, const Problem& problem, const LatencyModelInput& in, const VarGrid& x,
                     const NetCommVars& comm, const SlotTimes& times) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const std::size_t n = boost::num_vertices(g);
  const int q = in.q, columns = in.columns;
  auto t = [unit = in.unit](double time) { return time / unit; };
  // (7) SubgraphFinish = SubgraphStart + in-transfers + compute + out-transfers, the compute at the
  // slot's accelerator's kind.
  for (int j = 1; j < columns; ++j) {
    const int kind = devices.kindOf((j - 1) / q);
    LinExpr duration;
    for (Vertex v = 0; v < n; ++v) {
      const double p = g[v].accTime(kind);
      if (x[v][j].index >= 0 && p != 0) duration.add(x[v][j], t(p));
    }
    for (std::size_t i = 0; i < problem.nets.size(); ++i) {
      const double c = t(problem.nets[i].cost);
      if (comm.in[i][j].index >= 0) duration.add(comm.in[i][j], c);
      if (comm.out[i][j].index >= 0) duration.add(comm.out[i][j], c);
    }
    m.addEq(times.finish[j], LinExpr(times.start[j]) + duration, "finish_" + std::to_string(j));
    m.addGe(times.total, times.finish[j], "total_finish");
  }
}

void addStartRows(mip::Model& m, const Problem& problem, int columns, const VarGrid& x,
                  const NetCommVars& comm, const SlotTimes& times, const EdgeSet& edges) {
  // (6) a slot starts once every input is in CPU memory: through the net's CommIn where the net
  // covers the edge, else through the edge's x_vj - x_uj.
  EdgeSet covered;
  for (std::size_t i = 0; i < problem.nets.size(); ++i) {
    const Net& net = problem.nets[i];
    if (net.cost == 0) continue;
    for (Vertex s : net.sinks)
      covered.emplace(net.source, s);
    for (int j = 1; j < columns; ++j) {
      if (comm.in[i][j].index < 0) continue;
      m.addGe(times.start[j], LinExpr(times.latency[net.source]) - (1.0 - LinExpr(comm.in[i][j])),
              "start_net");
    }
  }
  for (const auto& [u, v] : edges) {
    if (covered.count({u, v})) continue;
    for (int j = 1; j < columns; ++j) {
      if (x[v][j].index < 0) continue;
      m.addGe(times.start[j], LinExpr(times.latency[u]) - (1.0 - term(x, v, j) + term(x, u, j)),
              "start_edge");
    }
  }
}

void addPrecedenceRows(mip::Model& m, const Problem& problem, const LatencyModelInput& in, const VarGrid& x,
                       const SlotTimes& times, const EdgeSet& edges) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const std::size_t n = boost::num_vertices(g);
  const int columns = in.columns;
  auto t = [unit = in.unit](double time) { return time / unit; };
  // (8), (9) with the accelerator case folded in: a node starts after its predecessors, takes p_cpu
  // on the CPU, and at least its fastest kind's time in a slot when its predecessor is on the CPU. A source
  // on the CPU finishes after p_cpu, stated against a time origin rather than as Latency_v >= p_cpu x_v0:
  // once a start fixes x that row is a singleton, and GLPK's LP presolver (which completes the start) drops a
  // singleton row whose implied bound it deems insignificant (less than about 1e-3 above the current one),
  // which left starts 4e-5 short of feasible and unused.
  const Var origin = m.addContinuous(0, 1, "Origin");
  std::vector<bool> has_successor(n, false), has_predecessor(n, false);
  for (const auto& [u, v] : edges) {
    has_successor[u] = true;
    has_predecessor[v] = true;
    LinExpr after = times.latency[u];
    if (x[v][0].index >= 0) after.add(x[v][0], t(g[v].p_cpu));
    m.addGe(times.latency[v], after, "precedence");
    double fastest = g[v].p_acc;
    for (int kind = 1; kind < devices.kindCount(); ++kind)
      fastest = std::min(fastest, g[v].accTime(kind));
    if (x[u][0].index >= 0 && x[v][0].index >= 0 && in.on_accelerator(v) && fastest > 0) {
      m.addGe(times.latency[v],
              LinExpr(times.latency[u]) + t(fastest) * (LinExpr(x[u][0]) - LinExpr(x[v][0])),
              "precedence_acc");
    }
  }
  for (Vertex v = 0; v < n; ++v) {
    if (!has_predecessor[v] && x[v][0].index >= 0)
      m.addGe(times.latency[v], LinExpr(origin) + t(g[v].p_cpu) * term(x, v, 0), "cpu_time");
    if (!has_successor[v]) m.addGe(times.total, times.latency[v], "total");
    // (10): the outputs of a slot's nodes are in CPU memory when the slot finishes. Sinks need no
    // row: TotalLatency >= SubgraphFinish covers them.
    if (!has_successor[v]) continue;
    for (int j = 1; j < columns; ++j) {
      if (x[v][j].index < 0) continue;
      m.addGe(times.latency[v], LinExpr(times.finish[j]) - (1.0 - LinExpr(x[v][j])), "latency_slot");
    }
  }
}

void addSlotOrderRows(mip::Model& m, const Problem& problem, const LatencyModelInput& in, const VarGrid& x,
                      const SlotTimes& times, std::vector<Var>& slot_used) {
  const DeviceSet& devices = problem.devices;
  const std::size_t n = boost::num_vertices(problem.graph);
  const int k = devices.accelerators;
  const int q = in.q, columns = in.columns;
  // (14) one subgraph at a time per accelerator, slots in index order.
  for (int j = 1; j < columns; ++j) {
    if ((j - 1) % q != 0) m.addGe(times.start[j], times.finish[j - 1], "sequence");
  }

  // Symmetry: within an accelerator the used slots come first; across accelerators of a kind,
  // accelerator a+1 holds a node only if accelerator a holds an earlier one.
  slot_used.assign(columns, Var{});
  if (in.symmetry_breaking && q > 1) {
    for (int j = 1; j < columns; ++j) {
      slot_used[j] = m.addBinary("used_" + std::to_string(j));
      LinExpr members;
      std::set<int> seen;  // shared variables of colocated nodes count once
      for (Vertex v = 0; v < n; ++v) {
        if (x[v][j].index < 0 || !seen.insert(x[v][j].index).second) continue;
        m.addLe(x[v][j], slot_used[j], "used");
        members += x[v][j];
      }
      m.addLe(slot_used[j], members, "used_only_if_nonempty");
      if ((j - 1) % q != 0) m.addLe(slot_used[j], slot_used[j - 1], "used_first");
    }
  }
  if (in.symmetry_breaking && k > 1) {
    // opened[a] <= 1 only once accelerator a holds a node up to the current one (opened grows by at
    // most X(v, a) per node), so X(v, a+1) <= opened[a] says a holds an earlier node. Stated with
    // these running variables rather than prefix sums, the rows have O(|V| k q) nonzeros instead of
    // O(|V|^2 k q).
    std::vector<LinExpr> opened(k);  // 0 before the first node
    for (Vertex v : in.order) {
      for (int a = 1; a < k; ++a) {
        if (devices.kindOf(a) != devices.kindOf(a - 1)) continue;  // the first of its kind
        LinExpr here = onAccelerator(x, v, a, q);
        if (!here.terms().empty())
          m.addLe(here, opened[a - 1], "sym_" + std::to_string(v) + "_" + std::to_string(a));
      }
      for (int a = 0; a + 1 < k; ++a) {
        LinExpr here = onAccelerator(x, v, a, q);
        if (here.terms().empty()) continue;
        const Var next = m.addContinuous(0, 1, "opened_" + std::to_string(v) + "_" + std::to_string(a));
        m.addLe(next, opened[a] + here, "opened");
        opened[a] = next;
      }
    }
  }
}

}  // namespace

LatencyModel buildLatencyModel(const Problem& problem, const LatencyModelInput& in) {
  LatencyModel out;
  mip::Model& m = out.m;
  out.x = addAssignmentVariables(m, problem, in.allowed, in.columns, /*share_colocated=*/in.q == 1);
  const VarGrid& x = out.x;
  addColocationRows(m, in, x, problem.devices.accelerators);
  addSlotMemoryRows(m, problem, x, in.q);
  // (2) contiguity of every slot.
  std::vector<std::vector<int>> slot_groups;
  for (int j = 1; j < in.columns; ++j)
    slot_groups.push_back({j});
  addContiguityRows(m, problem, x, slot_groups, EdgeSide::Both);
  // (4), (5): CommIn / CommOut per net and slot.
  const NetCommVars comm = addNetCommVars(m, problem, x, 1, in.columns);
  const SlotTimes times = addTimeVariables(m, boost::num_vertices(problem.graph), in);
  const EdgeSet edges = distinctEdges(problem.graph);
  addDurationRows(m, problem, in, x, comm, times);
  addStartRows(m, problem, in.columns, x, comm, times, edges);
  addPrecedenceRows(m, problem, in, x, times, edges);
  addSlotOrderRows(m, problem, in, x, times, out.slot_used);
  out.total = times.total;
  m.minimize(times.total);
  return out;
}

}  // namespace placer
