#include "solvers/refine/moves.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/latency.h"
#include "solvers/refine/split_loads.h"

namespace placer {

std::vector<std::vector<Vertex>> moveUnits(const Problem& problem) {
  const OpGraph& g = problem.graph;
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
  return units;
}

bool unitRunsOn(const Problem& problem, const std::vector<Vertex>& unit, int d) {
  const OpGraph& g = problem.graph;
  const bool accelerator = problem.devices.isAccelerator(d);
  for (Vertex v : unit) {
    if (accelerator ? !g[v].supportedOnAccelerator() : !std::isfinite(g[v].p_cpu)) return false;
  }
  return true;
}

namespace {

// Whether a contiguous split can give `unit` to another device at all: moving a unit with a forward
// predecessor and a forward successor on its own device would send a path out of the device's block
// and back. So some vertex of it has no forward predecessor there, or none of its forward vertices
// has a forward successor there.
bool atBlockEdge(const OpGraph& g, const std::vector<Vertex>& unit, const std::vector<int>& device_of) {
  bool has_forward = false, predecessor_here = false, successor_here = false;
  for (Vertex v : unit) {
    if (g[v].backward) continue;
    has_forward = true;
    for (auto [it, end] = boost::in_edges(v, g); it != end; ++it) {
      const Vertex u = boost::source(*it, g);
      predecessor_here = predecessor_here || (!g[u].backward && device_of[u] == device_of[v] &&
                                              std::find(unit.begin(), unit.end(), u) == unit.end());
    }
    for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
      const Vertex w = boost::target(*it, g);
      successor_here = successor_here || (!g[w].backward && device_of[w] == device_of[v] &&
                                          std::find(unit.begin(), unit.end(), w) == unit.end());
    }
  }
  return !has_forward || !predecessor_here || !successor_here;
}

// One FM pass over a split (see refine.h).
class ThroughputPass {
 public:
  ThroughputPass(const Problem& problem, const std::vector<std::vector<Vertex>>& units,
                 const RefineOptions& options, const std::vector<int>& device_of)
      : problem_(problem),
        units_(units),
        options_(options),
        gpipe_(problem.objective.gpipe),
        loads_(problem, device_of),
        check_backward_(options.contiguous && loads_.backwardAcyclic()) {}

  // Runs the pass; true when it ends on a better state than it started from.
  bool run(int& moves_kept) {
    const LoadScore start = score();
    LoadScore best = start;
    std::vector<std::pair<std::size_t, int>> log;  // (unit, device it left)
    std::size_t best_length = 0;
    std::vector<char> locked(units_.size(), 0);
    int since_best = 0;
    while (since_best < options_.patience && !options_.budget.exhausted()) {
      auto [unit, to, after] = bestMove(locked);
      if (to < 0) break;
      log.emplace_back(unit, loads_.deviceOf()[units_[unit].front()]);
      apply(unit, to);
      locked[unit] = 1;
      if (after.better(best)) {
        best = after;
        best_length = log.size();
        since_best = 0;
      } else {
        ++since_best;
      }
    }
    while (log.size() > best_length) {
      apply(log.back().first, log.back().second);
      log.pop_back();
    }
    moves_kept += static_cast<int>(best_length);
    return best.better(start);
  }

  // Swaps of two units, one of them on a device at the maximum, that leave a better state (first
  // improvement, in unit order): what single moves cannot do when the other device has no room for
  // one unit more, or when each half of the swap alone makes things worse. True when one was made.
  bool swaps(int& moves_kept) {
    LoadScore current = score();
    const std::vector<char> critical = criticalDevices();
    const OpGraph& g = problem_.graph;
    bool improved = false;
    for (std::size_t a = 0; a < units_.size() && !options_.budget.exhausted(); ++a) {
      const int da = loads_.deviceOf()[units_[a].front()];
      if (!critical[da] || (options_.contiguous && !atBlockEdge(g, units_[a], loads_.deviceOf()))) continue;
      for (std::size_t b = 0; b < units_.size(); ++b) {
        const int db = loads_.deviceOf()[units_[b].front()];
        if (db == da || !unitRunsOn(problem_, units_[a], db) || !unitRunsOn(problem_, units_[b], da))
          continue;
        if (options_.contiguous && !atBlockEdge(g, units_[b], loads_.deviceOf())) continue;
        apply(a, db);
        apply(b, da);
        if (feasible(da) && feasible(db)) {
          const LoadScore s = score();
          if (s.better(current)) {
            current = s;
            improved = true;
            moves_kept += 2;
            break;
          }
        }
        apply(b, db);
        apply(a, da);
      }
    }
    return improved;
  }

  const std::vector<int>& deviceOf() const { return loads_.deviceOf(); }

 private:
  LoadScore score() const {
    LoadScore s;
    s.value = loads_.objective(gpipe_, &s.spread);
    return s;
  }

  void apply(std::size_t unit, int to) {
    for (Vertex v : units_[unit])
      loads_.move(v, to);
  }

  bool feasible(int to) const {
    if (!loads_.memoryFits(to)) return false;
    if (!options_.contiguous) return true;
    return loads_.forwardAcyclic() && (!check_backward_ || loads_.backwardAcyclic());
  }

  std::vector<char> criticalDevices() const { return loads_.critical(gpipe_); }

  struct Move {
    std::size_t unit = 0;
    int to = -1;
    LoadScore after;
  };

  // The best move of an unlocked unit: off a device at the maximum to any device, or onto a device at
  // the maximum that holds one of its neighbours (which can save that device a transfer).
  Move bestMove(const std::vector<char>& locked) {
    const std::vector<char> critical = criticalDevices();
    const std::vector<int>& device_of = loads_.deviceOf();
    const OpGraph& g = problem_.graph;
    Move best;
    std::vector<char> target(static_cast<std::size_t>(loads_.devices()), 0);
    for (std::size_t u = 0; u < units_.size(); ++u) {
      const std::vector<Vertex>& unit = units_[u];
      const int from = device_of[unit.front()];
      if (locked[u]) continue;
      if (options_.contiguous && !atBlockEdge(g, unit, device_of)) continue;
      if (critical[from]) {
        std::fill(target.begin(), target.end(), 1);
      } else {
        std::fill(target.begin(), target.end(), 0);
        bool any = false;
        for (Vertex v : unit) {
          auto mark = [&](Vertex w) {
            if (critical[device_of[w]]) {
              target[device_of[w]] = 1;
              any = true;
            }
          };
          for (auto [it, end] = boost::out_edges(v, g); it != end; ++it)
            mark(boost::target(*it, g));
          for (auto [it, end] = boost::in_edges(v, g); it != end; ++it)
            mark(boost::source(*it, g));
        }
        if (!any) continue;
      }
      for (int to = 0; to < loads_.devices(); ++to) {
        if (to == from || !target[to] || !unitRunsOn(problem_, unit, to)) continue;
        apply(u, to);
        if (feasible(to)) {
          const LoadScore s = score();
          if (best.to < 0 || s.better(best.after)) best = {u, to, s};
        }
        apply(u, from);
      }
    }
    return best;
  }

  const Problem& problem_;
  const std::vector<std::vector<Vertex>>& units_;
  const RefineOptions& options_;
  const bool gpipe_;
  SplitLoads loads_;
  const bool check_backward_;
};

}  // namespace

void refineThroughputLevel(const Problem& problem, std::vector<int>& device_of, const RefineOptions& options,
                           RefineStats& stats) {
  const std::vector<std::vector<Vertex>> units = moveUnits(problem);
  for (int pass = 0; pass < options.max_passes && !options.budget.exhausted(); ++pass) {
    // A fresh state every pass: the sums kept by + and - do not drift from one pass to the next.
    ThroughputPass fm(problem, units, options, device_of);
    ++stats.passes;
    bool improved = fm.run(stats.moves);
    if (!improved) improved = fm.swaps(stats.moves);
    device_of = fm.deviceOf();
    if (!improved) break;
  }
}

bool kickSplit(const Problem& problem, const std::vector<std::vector<Vertex>>& units,
               std::vector<int>& device_of, std::mt19937_64& rng, bool contiguous, int max_units) {
  const OpGraph& g = problem.graph;
  const bool gpipe = problem.objective.gpipe;
  SplitLoads loads(problem, device_of);
  const bool check_backward = contiguous && loads.backwardAcyclic();
  std::vector<int> unit_of(boost::num_vertices(g), 0);
  for (std::size_t u = 0; u < units.size(); ++u) {
    for (Vertex v : units[u])
      unit_of[v] = static_cast<int>(u);
  }
  // The devices at the maximum, and a random one of them.
  std::vector<int> critical;
  const std::vector<char> at_max = loads.critical(gpipe);
  for (int d = 0; d < loads.devices(); ++d) {
    if (at_max[d]) critical.push_back(d);
  }
  const int from = critical[rng() % critical.size()];
  std::vector<std::size_t> on_device;
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (device_of[units[u].front()] == from) on_device.push_back(u);
  }
  if (on_device.empty()) return false;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const std::size_t size = 1 + rng() % static_cast<unsigned>(std::max(1, max_units));
    const int to = static_cast<int>(rng() % static_cast<unsigned>(loads.devices()));
    if (to == from) continue;
    std::vector<std::size_t> group{on_device[rng() % on_device.size()]};
    std::vector<char> taken(units.size(), 0);
    taken[group.front()] = 1;
    for (std::size_t next = 0; next < group.size() && group.size() < size; ++next) {
      for (Vertex v : units[group[next]]) {
        auto take = [&](Vertex w) {
          const auto u = static_cast<std::size_t>(unit_of[w]);
          if (group.size() < size && !taken[u] && device_of[w] == from) {
            taken[u] = 1;
            group.push_back(u);
          }
        };
        for (auto [it, end] = boost::out_edges(v, g); it != end; ++it)
          take(boost::target(*it, g));
        for (auto [it, end] = boost::in_edges(v, g); it != end; ++it)
          take(boost::source(*it, g));
      }
    }
    bool runs = true;
    for (std::size_t u : group)
      runs = runs && unitRunsOn(problem, units[u], to);
    if (!runs) continue;
    for (std::size_t u : group) {
      for (Vertex v : units[u])
        loads.move(v, to);
    }
    const bool fits =
        loads.memoryFits(to) &&
        (!contiguous || (loads.forwardAcyclic() && (!check_backward || loads.backwardAcyclic())));
    if (fits) {
      device_of = loads.deviceOf();
      return true;
    }
    for (std::size_t u : group) {
      for (Vertex v : units[u])
        loads.move(v, from);
    }
  }
  return false;
}

void refineLatencyLevel(const Problem& problem, std::vector<int>& device_of, const RefineOptions& options,
                        RefineStats& stats) {
  const OpGraph& g = problem.graph;
  const std::vector<std::vector<Vertex>> units = moveUnits(problem);
  double best = refineObjective(problem, device_of);
  auto assign = [&](const std::vector<Vertex>& unit, int d) {
    for (Vertex v : unit)
      device_of[v] = d;
  };
  for (int round = 0; round < options.max_passes && std::isfinite(best); ++round) {
    ++stats.passes;
    bool improved = false;
    for (const std::vector<Vertex>& unit : units) {
      if (options.budget.exhausted()) return;
      const int from = device_of[unit.front()];
      // Targets: every accelerator, and the first CPU core (which core a CPU node is on does not
      // change the latency) and the devices of the unit's neighbours.
      std::vector<int> targets;
      for (int d = 0; d < problem.devices.accelerators; ++d)
        targets.push_back(d);
      for (Vertex v : unit) {
        for (auto [it, end] = boost::out_edges(v, g); it != end; ++it)
          targets.push_back(device_of[boost::target(*it, g)]);
        for (auto [it, end] = boost::in_edges(v, g); it != end; ++it)
          targets.push_back(device_of[boost::source(*it, g)]);
      }
      if (problem.devices.cpus > 0) targets.push_back(problem.devices.accelerators);
      std::sort(targets.begin(), targets.end());
      targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
      for (int to : targets) {
        if (to == from || !unitRunsOn(problem, unit, to)) continue;
        assign(unit, to);
        const double value = refineObjective(problem, device_of);
        if (value < best * (1 - 1e-12)) {
          best = value;
          improved = true;
          ++stats.moves;
          break;
        }
        assign(unit, from);
      }
    }
    if (!improved) break;
  }
}

}  // namespace placer
