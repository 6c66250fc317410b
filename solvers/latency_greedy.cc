#include "solvers/latency_greedy.h"

#include <algorithm>
#include <boost/graph/strong_components.hpp>
#include <cassert>
#include <chrono>
#include <iomanip>
#include <map>
#include <numeric>
#include <sstream>
#include <string>

#include "core/latency.h"

namespace placer {

namespace {

int findRoot(std::vector<int>& parent, int x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

// Block of every vertex (blocks numbered by smallest vertex) and the number of blocks.
std::vector<int> contractBlocks(const OpGraph& g, int& blocks) {
  const std::size_t n = boost::num_vertices(g);
  // Colocation classes, each numbered by its first vertex.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::map<int, int> first_of_class;
  for (Vertex v = 0; v < n; ++v) {
    if (!g[v].colocation) continue;
    auto [it, inserted] = first_of_class.try_emplace(*g[v].colocation, static_cast<int>(v));
    if (!inserted) parent[findRoot(parent, static_cast<int>(v))] = findRoot(parent, it->second);
  }
  std::vector<int> class_of(n, -1), root_class(n, -1);
  int classes = 0;
  for (Vertex v = 0; v < n; ++v) {
    int& c = root_class[findRoot(parent, static_cast<int>(v))];
    if (c < 0) c = classes++;
    class_of[v] = c;
  }
  // Strongly connected components of the class graph.
  using Digraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Digraph quotient(classes);
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const int a = class_of[boost::source(*it, g)], b = class_of[boost::target(*it, g)];
    if (a != b) boost::add_edge(a, b, quotient);
  }
  std::vector<int> component(classes);
  boost::strong_components(quotient, boost::make_iterator_property_map(
                                         component.begin(), boost::get(boost::vertex_index, quotient)));
  std::vector<int> block_of_component(classes, -1), block_of(n);
  blocks = 0;
  for (Vertex v = 0; v < n; ++v) {
    int& b = block_of_component[component[class_of[v]]];
    if (b < 0) b = blocks++;
    block_of[v] = b;
  }
  return block_of;
}

std::string number(double value) {
  std::ostringstream out;
  out << std::setprecision(15) << value;
  return out.str();
}

}  // namespace

std::vector<std::vector<Vertex>> latencyGreedyBlocks(const Problem& problem) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  int count = 0;
  const std::vector<int> block_of = contractBlocks(g, count);
  std::vector<std::vector<Vertex>> members(count);
  for (Vertex v = 0; v < n; ++v)
    members[block_of[v]].push_back(v);

  // One successor entry per edge between blocks (parallel edges kept): a block becomes ready when
  // its last incoming edge is taken, and is pushed at that moment.
  std::vector<std::vector<int>> successors(count);
  std::vector<int> waiting(count, 0);
  for (int b = 0; b < count; ++b) {
    for (Vertex v : members[b]) {
      for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
        const int c = block_of[boost::target(*it, g)];
        if (c == b) continue;
        successors[b].push_back(c);
        ++waiting[c];
      }
    }
  }
  std::vector<int> stack;
  for (int b = 0; b < count; ++b) {
    if (waiting[b] == 0) stack.push_back(b);
  }
  std::vector<std::vector<Vertex>> order;
  order.reserve(count);
  while (!stack.empty()) {
    const int b = stack.back();
    stack.pop_back();
    order.push_back(std::move(members[b]));
    for (int c : successors[b]) {
      if (--waiting[c] == 0) stack.push_back(c);
    }
  }
  assert(static_cast<int>(order.size()) == count && "the block graph is a condensation, hence acyclic");
  return order;
}

SolveResult solveLatencyGreedy(const Problem& problem) {
  const auto started = std::chrono::steady_clock::now();
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  SolveResult result;
  auto finish = [&](SolveStatus status, std::string message = {}) {
    result.status = status;
    result.message = std::move(message);
    result.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  };

  const std::size_t n = boost::num_vertices(g);
  Placement& placement = result.placement;
  placement.device_of.assign(n, -1);
  placement.stage_of.assign(n, -1);
  const int cpu = devices.accelerators;
  int next_accelerator = 0, stage = -1, current = -1;  // current: device of the last block placed
  double used = 0;                                     // memory used on `current` if an accelerator
  const std::vector<std::vector<int>> weights_of = weightsOfVertices(problem);
  std::vector<char> held(problem.weights.size(), 0);  // shared weights on `current`
  for (const std::vector<Vertex>& block : latencyGreedyBlocks(problem)) {
    double memory = 0;  // the block's own memory and the shared weights it reads, each once
    double extra = 0;   // what it adds to `current`: shared weights already there count nothing
    std::vector<int> reads;
    const Vertex* unsupported = nullptr;
    for (const Vertex& v : block) {
      memory += g[v].memory;
      extra += g[v].memory;
      reads.insert(reads.end(), weights_of[v].begin(), weights_of[v].end());
      if (!unsupported && !g[v].supportedOnAccelerator()) unsupported = &v;
    }
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    for (int w : reads) {
      memory += problem.weights[w].bytes;
      if (!held[w]) extra += problem.weights[w].bytes;
    }
    // The next accelerator the block fits (on a machine of several kinds, a smaller kind's is skipped).
    int fits = next_accelerator;
    while (fits < devices.accelerators && memory > devices.memoryOf(fits))
      ++fits;
    const bool placeable = !unsupported && memory <= devices.memory;
    int device = cpu;
    if (placeable && current >= 0 && current < cpu && used + extra <= devices.memoryOf(current)) {
      device = current;
      used += extra;
    } else if (placeable && fits < devices.accelerators) {
      device = fits;
      next_accelerator = fits + 1;
      used = memory;
      std::fill(held.begin(), held.end(), 0);
    } else if (devices.cpus == 0) {
      std::string why =
          unsupported  ? describeNode(g, *unsupported) + " is not supported on accelerators"
          : !placeable ? "the block of " + describeNode(g, block.front()) + " needs " + number(memory) +
                             " bytes, more than an accelerator's " + number(devices.memory)
                       : "all " + std::to_string(devices.accelerators) +
                             " accelerator(s) are full before the block of " + describeNode(g, block.front());
      placement = Placement{};
      return finish(SolveStatus::Infeasible, why + ", and there is no CPU to run it");
    }
    if (device != current) {
      current = device;
      ++stage;
    }
    if (device < cpu) {
      for (int w : reads)
        held[w] = 1;
    }
    for (Vertex v : block) {
      placement.device_of[v] = device;
      placement.stage_of[v] = stage;
    }
  }

  Expected<LatencyEvaluation> eval = evaluateLatency(problem, placement.device_of);
  if (!eval) return finish(SolveStatus::Error, eval.status().message());
  if (!eval->valid())
    return finish(SolveStatus::Error, "the greedy split is invalid: " + eval->violations.front());
  placement.value = eval->latency;
  result.value = eval->latency;
  result.bound = 0;  // a heuristic: no certificate
  result.gap = result.value > 0 ? 1.0 : 0.0;
  return finish(SolveStatus::Feasible);
}

}  // namespace placer
