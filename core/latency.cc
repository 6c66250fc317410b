#include "core/latency.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <optional>
#include <queue>
#include <sstream>
#include <utility>

#include "core/evaluate.h"

namespace placer {

namespace {

std::string number(double value) {
  std::ostringstream out;
  out << std::setprecision(15) << value;
  return out.str();
}

// Topological order of the whole graph, smallest index first among ready vertices; nullopt on a
// cycle.
std::optional<std::vector<Vertex>> topologicalOrder(const OpGraph& g) {
  const std::size_t n = boost::num_vertices(g);
  std::vector<int> indegree(n, 0);
  for (Vertex v = 0; v < n; ++v)
    indegree[v] = static_cast<int>(boost::in_degree(v, g));
  std::priority_queue<Vertex, std::vector<Vertex>, std::greater<>> ready;
  for (Vertex v = 0; v < n; ++v) {
    if (indegree[v] == 0) ready.push(v);
  }
  std::vector<Vertex> order;
  order.reserve(n);
  while (!ready.empty()) {
    Vertex v = ready.top();
    ready.pop();
    order.push_back(v);
    for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
      Vertex w = boost::target(*it, g);
      if (--indegree[w] == 0) ready.push(w);
    }
  }
  if (order.size() != n) return std::nullopt;
  return order;
}

// What the latency recurrence runs over: the accelerator pieces (units 0..pieces-1, by device then
// piece) and one unit per CPU node.
struct Units {
  std::vector<int> unit_of;      // per vertex
  std::vector<int> first_piece;  // per accelerator: its first unit; pieces are consecutive
  std::vector<int> piece_count;  // per accelerator
  std::vector<Vertex> cpu_node;  // per unit >= pieces: the CPU node it stands for
  int pieces = 0;

  int size() const { return pieces + static_cast<int>(cpu_node.size()); }
};

// Levels of one accelerator's nodes (1-based; 0 for nodes with none of its nodes upstream): a node
// of the device takes the largest level of its predecessors, plus one for a predecessor elsewhere
// (a path that left the device and comes back starts a new run).
void computeLevels(const OpGraph& g, const std::vector<Vertex>& order, const std::vector<int>& device_of,
                   int device, std::vector<int>& level) {
  for (Vertex v : order) {
    const bool here = device_of[v] == device;
    int l = here ? 1 : 0;
    for (auto [it, end] = boost::in_edges(v, g); it != end; ++it) {
      Vertex u = boost::source(*it, g);
      l = std::max(l, level[u] + (here && device_of[u] != device ? 1 : 0));
    }
    level[v] = l;
  }
}

Units buildUnits(const Problem& problem, const std::vector<Vertex>& order,
                 const std::vector<int>& device_of) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const int k = problem.devices.accelerators;
  Units units;
  units.unit_of.assign(n, -1);
  units.first_piece.assign(k, 0);
  units.piece_count.assign(k, 0);
  std::vector<bool> used(k, false);
  for (Vertex v = 0; v < n; ++v) {
    if (device_of[v] < k) used[device_of[v]] = true;
  }
  std::vector<int> level(n, 0);
  for (int d = 0; d < k; ++d) {
    units.first_piece[d] = units.pieces;
    if (!used[d]) continue;
    computeLevels(g, order, device_of, d, level);
    for (Vertex v = 0; v < n; ++v) {
      if (device_of[v] != d) continue;
      units.unit_of[v] = units.pieces + level[v] - 1;
      units.piece_count[d] = std::max(units.piece_count[d], level[v]);
    }
    units.pieces += units.piece_count[d];
  }
  for (Vertex v = 0; v < n; ++v) {
    if (device_of[v] >= k) {
      units.unit_of[v] = units.size();
      units.cpu_node.push_back(v);
    }
  }
  return units;
}

// One dependency between units: `unit` is the other end (the successor in succ_, the predecessor in
// pred_); the reason is an edge of the graph or the device's previous piece.
struct Dependency {
  int unit = 0;
  Edge edge{};            // when !sequence
  bool sequence = false;  // Fig. 4 (14): the device's previous piece must finish first
};

class LatencyRecurrence {
 public:
  LatencyRecurrence(const Problem& problem, const std::vector<int>& device_of, const Units& units)
      : problem_(problem), device_of_(device_of), units_(units) {
    const OpGraph& g = problem.graph;
    succ_.resize(units.size());
    pred_.resize(units.size());
    for (auto [it, end] = boost::edges(g); it != end; ++it) {
      const int a = units.unit_of[boost::source(*it, g)], b = units.unit_of[boost::target(*it, g)];
      if (a == b) continue;
      succ_[a].push_back({b, *it, false});
      pred_[b].push_back({a, *it, false});
    }
    for (int d = 0; d < problem.devices.accelerators; ++d) {
      for (int p = 1; p < units.piece_count[d]; ++p) {
        const int a = units.first_piece[d] + p - 1, b = a + 1;
        succ_[a].push_back({b, Edge{}, true});
        pred_[b].push_back({a, Edge{}, true});
      }
    }
  }

  // Fills finish times and the piece records; an error when the units wait for one another.
  Status run(LatencyEvaluation& result) {
    const OpGraph& g = problem_.graph;
    const int count = units_.size();
    std::vector<int> waiting(count);
    for (int u = 0; u < count; ++u)
      waiting[u] = static_cast<int>(pred_[u].size());
    std::vector<double> ready(count, 0), previous(count, 0), finish(count, 0);
    std::queue<int> queue;
    for (int u = 0; u < count; ++u) {
      if (waiting[u] == 0) queue.push(u);
    }
    int done = 0;
    while (!queue.empty()) {
      const int u = queue.front();
      queue.pop();
      ++done;
      if (u < units_.pieces) {
        LatencySubgraph& s = result.subgraphs[u];
        s.ready = ready[u];
        s.start = std::max(ready[u], previous[u]);
        s.finish = s.start + s.comm_in + s.compute + s.comm_out;
        finish[u] = s.finish;
      } else {
        finish[u] = ready[u] + g[units_.cpu_node[u - units_.pieces]].p_cpu;
      }
      for (const Dependency& dep : succ_[u]) {
        double& slot = dep.sequence ? previous[dep.unit] : ready[dep.unit];
        slot = std::max(slot, finish[u]);
        if (--waiting[dep.unit] == 0) queue.push(dep.unit);
      }
    }
    if (done != count) return deadlock(waiting);
    const std::size_t n = boost::num_vertices(g);
    result.finish.assign(n, 0);
    result.latency = 0;
    for (Vertex v = 0; v < n; ++v) {
      result.finish[v] = finish[units_.unit_of[v]];
      result.latency = std::max(result.latency, result.finish[v]);
    }
    return Status::ok();
  }

 private:
  // Where a unit runs: "accelerator 1 subgraph 2 of 3" or "cpu 0".
  std::string unitPlace(int u) const {
    const DeviceSet& devices = problem_.devices;
    if (u >= units_.pieces) return deviceName(devices, device_of_[units_.cpu_node[u - units_.pieces]]);
    const int d = static_cast<int>(std::upper_bound(units_.first_piece.begin(), units_.first_piece.end(), u) -
                                   units_.first_piece.begin()) -
                  1;
    return deviceName(devices, d) + " subgraph " + std::to_string(u - units_.first_piece[d] + 1) + " of " +
           std::to_string(units_.piece_count[d]);
  }

  // Every unit left waiting has a predecessor left waiting, so walking predecessors from any of them
  // runs into a cycle; the message follows it: "A needs the output of node x (on B), which needs
  // the output of node y (on C), ..., (on A)".
  Status deadlock(const std::vector<int>& waiting) const {
    const OpGraph& g = problem_.graph;
    int u = static_cast<int>(std::find_if(waiting.begin(), waiting.end(), [](int w) { return w > 0; }) -
                             waiting.begin());
    std::vector<int> position(units_.size(), -1);
    std::vector<const Dependency*> walk;
    while (position[u] < 0) {
      position[u] = static_cast<int>(walk.size());
      auto it = std::find_if(pred_[u].begin(), pred_[u].end(),
                             [&](const Dependency& d) { return waiting[d.unit] > 0; });
      walk.push_back(&*it);
      u = it->unit;
    }
    std::string message = "the placement deadlocks: ";
    message += u >= units_.pieces
                   ? describeNode(g, units_.cpu_node[u - units_.pieces]) + " on " + unitPlace(u)
                   : unitPlace(u);
    for (std::size_t i = position[u]; i < walk.size(); ++i) {
      const Dependency& dep = *walk[i];
      if (i > static_cast<std::size_t>(position[u])) message += ", which";
      if (dep.sequence) {
        message += " must wait for " + unitPlace(dep.unit) + " to finish (one subgraph at a time)";
      } else {
        message += " needs the output of " + describeNode(g, boost::source(dep.edge, g)) + " (" +
                   unitPlace(dep.unit) + ")";
      }
    }
    message += ": an accelerator subgraph starts only when all of its inputs are in CPU memory";
    return infeasible(message);
  }

  const Problem& problem_;
  const std::vector<int>& device_of_;
  const Units& units_;
  std::vector<std::vector<Dependency>> succ_, pred_;
};

}  // namespace

std::vector<std::string> latencyViolations(const Problem& problem, const std::vector<int>& device_of) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  std::vector<std::string> out;
  const std::vector<double> memory = deviceMemory(problem, device_of);
  std::map<int, std::pair<int, Vertex>> device_of_class;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    const int d = device_of[v];
    if (devices.isAccelerator(d)) {
      if (!g[v].supportedOnAccelerator()) {
        out.push_back(describeNode(g, v) + " is not supported on accelerators but is on " +
                      deviceName(devices, d));
      }
    }
    if (g[v].colocation) {
      auto [it, inserted] = device_of_class.try_emplace(*g[v].colocation, d, v);
      if (!inserted && it->second.first != d) {
        out.push_back(describeNode(g, v) + " is separated from " + describeNode(g, it->second.second) +
                      " (colocation class " + std::to_string(*g[v].colocation) + ")");
      }
    }
  }
  for (int d = 0; d < devices.accelerators; ++d) {
    if (memory[d] > devices.memoryOf(d) * (1 + 1e-12)) {
      out.push_back(deviceName(devices, d) + " holds " + number(memory[d]) + " bytes, more than its " +
                    number(devices.memoryOf(d)));
    }
  }
  return out;
}

Expected<LatencyEvaluation> evaluateLatency(const Problem& problem, const std::vector<int>& device_of) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const DeviceSet& devices = problem.devices;
  if (device_of.size() != n) {
    return invalidInput("the placement covers " + std::to_string(device_of.size()) +
                        " nodes, the graph has " + std::to_string(n));
  }
  for (Vertex v = 0; v < n; ++v) {
    if (device_of[v] < 0 || device_of[v] >= devices.count()) {
      return invalidInput(describeNode(g, v) + " is on device " + std::to_string(device_of[v]) +
                          ", which does not exist (" + std::to_string(devices.accelerators) +
                          " accelerator(s), " + std::to_string(devices.cpus) + " cpu(s))");
    }
  }
  std::optional<std::vector<Vertex>> order = topologicalOrder(g);
  if (!order) return invalidInput("the graph has a cycle: it has no single-sample latency");

  const Units units = buildUnits(problem, *order, device_of);
  LatencyEvaluation result;
  result.violations = latencyViolations(problem, device_of);
  result.subgraph_of.assign(n, -1);
  result.subgraphs.resize(units.pieces);
  const std::vector<double> held = deviceMemory(problem, device_of);
  result.memory.assign(held.begin(), held.begin() + devices.accelerators);
  for (int d = 0; d < devices.accelerators; ++d) {
    for (int p = 0; p < units.piece_count[d]; ++p) {
      result.subgraphs[units.first_piece[d] + p].device = d;
      result.subgraphs[units.first_piece[d] + p].piece = p;
    }
  }
  for (Vertex v = 0; v < n; ++v) {
    const int u = units.unit_of[v];
    if (u >= units.pieces) continue;
    LatencySubgraph& s = result.subgraphs[u];
    s.nodes.push_back(v);
    s.compute += g[v].accTime(devices.kindOf(s.device));
    result.subgraph_of[v] = u;
  }
  for (LatencySubgraph& s : result.subgraphs)
    s.memory = memoryOfSet(problem, s.nodes);
  // Each net is paid once by the piece that produces it and once by every other piece that
  // consumes it, whatever the number of its consumers there.
  std::vector<int> receivers;
  for (const Net& net : problem.nets) {
    const int from = units.unit_of[net.source];
    receivers.clear();
    for (Vertex s : net.sinks) {
      if (units.unit_of[s] != from) receivers.push_back(units.unit_of[s]);
    }
    if (receivers.empty()) continue;
    std::sort(receivers.begin(), receivers.end());
    receivers.erase(std::unique(receivers.begin(), receivers.end()), receivers.end());
    if (from < units.pieces) result.subgraphs[from].comm_out += net.cost;
    for (int to : receivers) {
      if (to < units.pieces) result.subgraphs[to].comm_in += net.cost;
    }
  }

  LatencyRecurrence recurrence(problem, device_of, units);
  if (Status s = recurrence.run(result); !s) return s;
  return result;
}

Status verifyLatency(const Problem& problem, const Placement& placement) {
  const std::size_t n = boost::num_vertices(problem.graph);
  if (placement.device_of.size() != n || (!placement.stage_of.empty() && placement.stage_of.size() != n)) {
    return internalError("placement covers " + std::to_string(placement.device_of.size()) +
                         " nodes, the graph has " + std::to_string(n));
  }
  Expected<LatencyEvaluation> eval = evaluateLatency(problem, placement.device_of);
  if (!eval) return internalError(eval.status().message());
  if (!eval->valid()) return internalError(eval->violations.front());
  const double scale = std::max(1.0, std::abs(eval->latency));
  if (!(std::abs(eval->latency - placement.value) <= 1e-9 * scale)) {
    return internalError("placement claims latency " + number(placement.value) + " but recomputes to " +
                         number(eval->latency));
  }
  return Status::ok();
}

Status verifyForObjective(const Problem& problem, const Placement& placement, bool contiguous) {
  if (problem.objective.goal == Goal::Latency) return verifyLatency(problem, placement);
  if (!problem.objective.gpipe) return verify(problem, placement, contiguous);
  Placement check = placement;
  check.value = evaluateThroughput(problem, check.device_of).max_load;
  return verify(problem, check, contiguous);
}

}  // namespace placer
