#include "solvers/local_search.h"

#include <cmath>
#include <map>

#include "core/evaluate.h"

namespace placer {

namespace {

struct Score {
  double max_load = 0;
  double squares = 0;
  bool better(const Score& o) const {
    const double eps = 1e-12 * std::max(1.0, o.max_load);
    if (max_load < o.max_load - eps) return true;
    if (max_load > o.max_load + eps) return false;
    return squares < o.squares - 1e-12 * std::max(1.0, o.squares);
  }
};

Score score(const Problem& problem, const std::vector<int>& device_of) {
  const Evaluation e = evaluateThroughput(problem, device_of);
  Score s;
  s.max_load = e.max_load;
  for (const DeviceLoad& d : e.devices)
    s.squares += d.load * d.load;
  const DeviceSet& devices = problem.devices;
  for (int d = 0; d < devices.accelerators; ++d) {
    if (e.devices[d].memory > devices.memoryOf(d)) s.max_load = kInfinity;
  }
  return s;
}

}  // namespace

std::vector<int> improveByLocalSearch(const Problem& problem, std::vector<int> device_of,
                                      const Budget& budget, int max_rounds) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  // Units: colocation classes and single nodes.
  std::vector<std::vector<Vertex>> units;
  std::map<int, std::size_t> unit_of_class;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (!g[v].colocation) {
      units.push_back({v});
      continue;
    }
    auto [it, inserted] = unit_of_class.try_emplace(*g[v].colocation, units.size());
    if (inserted) units.emplace_back();
    units[it->second].push_back(v);
  }
  auto allowed = [&](const std::vector<Vertex>& unit, int d) {
    for (Vertex v : unit) {
      if (devices.isAccelerator(d) ? !g[v].supportedOnAccelerator() : !std::isfinite(g[v].p_cpu))
        return false;
    }
    return true;
  };
  auto assign = [&](const std::vector<Vertex>& unit, int d) {
    for (Vertex v : unit)
      device_of[v] = d;
  };
  Score best = score(problem, device_of);
  for (int round = 0; round < max_rounds; ++round) {
    bool improved = false;
    for (const auto& unit : units) {
      if (budget.exhausted()) return device_of;
      const int from = device_of[unit.front()];
      for (int d = 0; d < devices.count(); ++d) {
        if (d == from || !allowed(unit, d)) continue;
        assign(unit, d);
        const Score s = score(problem, device_of);
        if (s.better(best)) {
          best = s;
          improved = true;
          break;
        }
        assign(unit, from);
      }
    }
    for (std::size_t a = 0; a < units.size(); ++a) {
      if (budget.exhausted()) return device_of;
      for (std::size_t b = a + 1; b < units.size(); ++b) {
        const int da = device_of[units[a].front()], db = device_of[units[b].front()];
        if (da == db || !allowed(units[a], db) || !allowed(units[b], da)) continue;
        assign(units[a], db);
        assign(units[b], da);
        const Score s = score(problem, device_of);
        if (s.better(best)) {
          best = s;
          improved = true;
          continue;
        }
        assign(units[a], da);
        assign(units[b], db);
      }
    }
    if (!improved) break;
  }
  return device_of;
}

}  // namespace placer
