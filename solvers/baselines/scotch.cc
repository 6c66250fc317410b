#include "solvers/baselines/scotch.h"

// clang-format off
#include <cstdio>  // scotch.h uses FILE without including it
#include <scotch.h>
// clang-format on

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "core/budget.h"
#include "core/evaluate.h"
#include "solvers/refine/moves.h"
#include "solvers/stages.h"

namespace placer {

namespace {

// A graph in Scotch's compact (CSR) form over the units, both arcs of every edge.
struct CsrGraph {
  std::vector<SCOTCH_Num> begin, adjacency, vertex_weight, edge_weight;
};

// The units' pairwise communication: each net's cost between its source's unit and each sink's.
std::map<std::pair<std::size_t, std::size_t>, double> unitTraffic(const Problem& problem,
                                                                  const std::vector<std::size_t>& unit_of,
                                                                  bool accelerators) {
  std::map<std::pair<std::size_t, std::size_t>, double> traffic;
  for (const Net& net : problem.nets) {
    const std::size_t a = unit_of[net.source];
    std::vector<std::size_t> seen;
    for (Vertex s : net.sinks) {
      const std::size_t b = unit_of[s];
      if (b == a || std::find(seen.begin(), seen.end(), b) != seen.end()) continue;
      seen.push_back(b);
      traffic[{std::min(a, b), std::max(a, b)}] += accelerators ? net.cost : net.cpu_cost;
    }
  }
  return traffic;
}

SCOTCH_Num scotchWeight(double value, double scale) {
  return std::max<SCOTCH_Num>(1, static_cast<SCOTCH_Num>(std::llround(value * scale)));
}

// The CSR graph of the given units (`index` maps a unit to its Scotch vertex, -1 for units left out).
CsrGraph buildCsr(const std::vector<double>& work,
                  const std::map<std::pair<std::size_t, std::size_t>, double>& traffic,
                  const std::vector<long>& index, std::size_t vertices) {
  double total_work = 0, total_traffic = 0;
  for (double w : work)
    total_work += w;
  std::vector<std::vector<std::pair<SCOTCH_Num, double>>> arcs(vertices);
  for (const auto& [pair, cost] : traffic) {
    const long a = index[pair.first], b = index[pair.second];
    if (a < 0 || b < 0 || !(cost > 0)) continue;
    arcs[static_cast<std::size_t>(a)].emplace_back(static_cast<SCOTCH_Num>(b), cost);
    arcs[static_cast<std::size_t>(b)].emplace_back(static_cast<SCOTCH_Num>(a), cost);
    total_traffic += cost;
  }
  const double largest = std::max({total_work, total_traffic, 1e-300});
  const double scale = 1e6 / largest;
  CsrGraph csr;
  csr.begin.push_back(0);
  for (std::size_t v = 0; v < vertices; ++v) {
    csr.vertex_weight.push_back(scotchWeight(work[v], scale));
    std::sort(arcs[v].begin(), arcs[v].end());
    for (const auto& [to, cost] : arcs[v]) {
      csr.adjacency.push_back(to);
      csr.edge_weight.push_back(scotchWeight(cost, scale));
    }
    csr.begin.push_back(static_cast<SCOTCH_Num>(csr.adjacency.size()));
  }
  return csr;
}

// Scotch's part of every vertex, or an error message.
Expected<std::vector<SCOTCH_Num>> scotchPartition(CsrGraph& csr, SCOTCH_Num parts, std::uint64_t seed) {
  const SCOTCH_Num vertices = static_cast<SCOTCH_Num>(csr.vertex_weight.size());
  std::vector<SCOTCH_Num> part(csr.vertex_weight.size(), 0);
  if (vertices == 0 || parts <= 1) return part;
  SCOTCH_Graph graph;
  SCOTCH_Strat strategy;
  if (SCOTCH_graphInit(&graph) != 0) return internalError("Scotch could not initialise a graph");
  auto free_graph = std::unique_ptr<SCOTCH_Graph, void (*)(SCOTCH_Graph*)>(&graph, SCOTCH_graphExit);
  if (SCOTCH_stratInit(&strategy) != 0) return internalError("Scotch could not initialise a strategy");
  auto free_strategy = std::unique_ptr<SCOTCH_Strat, void (*)(SCOTCH_Strat*)>(&strategy, SCOTCH_stratExit);
  if (csr.adjacency.empty()) {  // Scotch reads the arrays even when there is no edge
    csr.adjacency.push_back(0);
    csr.edge_weight.push_back(0);
  }
  const SCOTCH_Num arcs = csr.begin.back();
  if (SCOTCH_graphBuild(&graph, 0, vertices, csr.begin.data(), csr.begin.data() + 1, csr.vertex_weight.data(),
                        nullptr, arcs, csr.adjacency.data(), csr.edge_weight.data()) != 0)
    return internalError("Scotch refused the graph (SCOTCH_graphBuild)");
  if (SCOTCH_graphCheck(&graph) != 0)
    return internalError("Scotch found the graph inconsistent (SCOTCH_graphCheck)");
  if (SCOTCH_stratGraphMapBuild(&strategy, SCOTCH_STRATQUALITY, parts, 0.05) != 0)
    return internalError("Scotch could not build its partitioning strategy");
  SCOTCH_randomSeed(static_cast<SCOTCH_Num>(seed & 0x7fffffff));
  SCOTCH_randomReset();
  if (SCOTCH_graphPart(&graph, parts, &strategy, part.data()) != 0)
    return internalError("Scotch failed to partition the graph (SCOTCH_graphPart)");
  return part;
}

}  // namespace

SolveResult solveScotch(const Problem& problem, const SolveOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const DeviceSet& devices = problem.devices;
  const bool on_accelerators = devices.accelerators > 0;
  const int parts = on_accelerators ? devices.accelerators : devices.cpus;
  const int first = on_accelerators ? 0 : devices.accelerators;
  const std::vector<std::vector<Vertex>> units = moveUnits(problem);
  std::vector<std::size_t> unit_of(boost::num_vertices(problem.graph), 0);
  for (std::size_t u = 0; u < units.size(); ++u) {
    for (Vertex v : units[u])
      unit_of[v] = u;
  }
  // Units the parts' devices cannot run go to the CPU cores, each to the least loaded.
  std::vector<long> index(units.size(), -1);
  std::vector<double> work;
  std::vector<double> cpu_load(static_cast<std::size_t>(devices.cpus), 0);
  std::vector<int> device_of(unit_of.size(), -1);
  SolveResult result;
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (unitRunsOn(problem, units[u], first)) {
      index[u] = static_cast<long>(work.size());
      double w = 0;
      for (Vertex v : units[u])
        w += on_accelerators ? problem.graph[v].p_acc : problem.graph[v].p_cpu;
      work.push_back(w);
      continue;
    }
    if (devices.cpus == 0 || !unitRunsOn(problem, units[u], devices.accelerators)) {
      result.status = SolveStatus::Infeasible;
      result.message = "scotch: " + describeNode(problem.graph, units[u].front()) + " runs on no device";
      return result;
    }
    const auto cpu = std::min_element(cpu_load.begin(), cpu_load.end()) - cpu_load.begin();
    for (Vertex v : units[u]) {
      cpu_load[static_cast<std::size_t>(cpu)] += problem.graph[v].p_cpu;
      device_of[v] = devices.accelerators + static_cast<int>(cpu);
    }
  }
  CsrGraph csr = buildCsr(work, unitTraffic(problem, unit_of, on_accelerators), index, work.size());
  auto part = scotchPartition(csr, parts, options.seed);
  if (!part) {
    result.message = "scotch: " + part.status().message();
    return result;
  }
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (index[u] < 0) continue;
    for (Vertex v : units[u])
      device_of[v] = first + static_cast<int>((*part)[static_cast<std::size_t>(index[u])]);
  }
  Placement& placement = result.placement;
  placement.device_of = std::move(device_of);
  placement.value = evaluateThroughput(problem, placement.device_of).max_load;
  placement.stage_of = stagesOrDevices(problem, placement.device_of);
  result.value = placement.value;
  result.status = SolveStatus::Feasible;
  result.gap = result.value > 0 ? 1.0 : 0.0;  // a heuristic: nothing proven
  result.memory_violation = memoryExcess(problem, placement.device_of);
  if (*result.memory_violation > 0) {
    std::ostringstream how;
    how << "exceeds the accelerators' memory by " << *result.memory_violation
        << " bytes in all: not a valid placement";
    result.message = how.str();
  }
  result.stats.seconds = secondsSince(started);
  return result;
}

}  // namespace placer
