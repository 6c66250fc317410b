#include "solvers/baselines/local_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>

#include "core/budget.h"
#include "core/evaluate.h"
#include "solvers/refine/moves.h"
#include "solvers/refine/split_loads.h"
#include "solvers/stages.h"

namespace placer {

namespace {

class LocalSearch {
 public:
  explicit LocalSearch(const Problem& problem)
      : problem_(problem), units_(moveUnits(problem)), gpipe_(problem.objective.gpipe) {
    const std::size_t n = boost::num_vertices(problem.graph);
    unit_of_.assign(n, 0);
    for (std::size_t u = 0; u < units_.size(); ++u) {
      for (Vertex v : units_[u])
        unit_of_[v] = u;
    }
    neighbours_.resize(units_.size());
    for (const Net& net : problem.nets) {
      std::vector<std::size_t> members{unit_of_[net.source]};
      for (Vertex s : net.sinks)
        members.push_back(unit_of_[s]);
      std::sort(members.begin(), members.end());
      members.erase(std::unique(members.begin(), members.end()), members.end());
      for (std::size_t a : members) {
        for (std::size_t b : members) {
          if (a != b) neighbours_[a].push_back(b);
        }
      }
    }
    for (auto& list : neighbours_) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
  }

  // A random valid split, or empty when this start left an accelerator over its memory.
  std::vector<int> randomStart(std::mt19937_64& rng) const;
  // The local optimum reached from `start` by best single-unit moves; false when the budget ran out.
  bool descend(std::vector<int>& device_of, const Budget& budget) const;
  LoadScore scoreOf(const std::vector<int>& device_of) const {
    SplitLoads loads(problem_, device_of);
    LoadScore s;
    s.value = loads.objective(gpipe_, &s.spread);
    return s;
  }

 private:
  void moveUnit(SplitLoads& loads, std::size_t u, int to) const {
    for (Vertex v : units_[u])
      loads.move(v, to);
  }
  bool fits(const SplitLoads& loads, int d) const {
    return !problem_.devices.isAccelerator(d) || loads.memoryFits(d);
  }
  std::vector<std::size_t> candidates(const SplitLoads& loads, std::vector<char>& seen) const;

  const Problem& problem_;
  std::vector<std::vector<Vertex>> units_;
  std::vector<std::size_t> unit_of_;
  std::vector<std::vector<std::size_t>> neighbours_;
  bool gpipe_;
};

std::vector<int> LocalSearch::randomStart(std::mt19937_64& rng) const {
  const DeviceSet& devices = problem_.devices;
  const int count = devices.count();
  // Everything starts on the first CPU core (no memory limit there), or on accelerator 0 without
  // CPUs; each unit then takes its random device.
  const int home = devices.cpus > 0 ? devices.accelerators : 0;
  std::vector<int> device_of(boost::num_vertices(problem_.graph), home);
  SplitLoads loads(problem_, device_of);
  std::vector<std::size_t> order(units_.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  for (std::size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[rng() % i]);
  std::vector<int> choices(static_cast<std::size_t>(count));
  for (std::size_t u : order) {
    for (int d = 0; d < count; ++d)
      choices[static_cast<std::size_t>(d)] = d;
    for (int left = count; left > 0; --left) {
      const std::size_t pick = rng() % static_cast<std::uint64_t>(left);
      const int d = choices[pick];
      std::swap(choices[pick], choices[static_cast<std::size_t>(left - 1)]);
      if (!unitRunsOn(problem_, units_[u], d)) continue;
      moveUnit(loads, u, d);
      if (fits(loads, d)) break;
      moveUnit(loads, u, home);
    }
  }
  for (int d = 0; d < devices.accelerators; ++d) {
    if (!loads.memoryFits(d)) return {};
  }
  for (const auto& unit : units_) {
    if (!unitRunsOn(problem_, unit, loads.deviceOf()[unit.front()])) return {};
  }
  return loads.deviceOf();
}

// The units whose move can change a device at the maximum: those on it and their net neighbours.
std::vector<std::size_t> LocalSearch::candidates(const SplitLoads& loads, std::vector<char>& seen) const {
  const std::vector<char> critical = loads.critical(gpipe_);
  std::vector<std::size_t> out;
  std::fill(seen.begin(), seen.end(), 0);
  for (std::size_t u = 0; u < units_.size(); ++u) {
    if (!critical[static_cast<std::size_t>(loads.deviceOf()[units_[u].front()])]) continue;
    for (std::size_t w : neighbours_[u]) {
      if (!seen[w]) {
        out.push_back(w);
        seen[w] = 1;
      }
    }
    if (!seen[u]) {
      out.push_back(u);
      seen[u] = 1;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool LocalSearch::descend(std::vector<int>& device_of, const Budget& budget) const {
  SplitLoads loads(problem_, device_of);
  std::vector<char> seen(units_.size(), 0);
  const int count = problem_.devices.count();
  LoadScore current;
  current.value = loads.objective(gpipe_, &current.spread);
  while (true) {
    if (budget.exhausted()) {
      device_of = loads.deviceOf();
      return false;
    }
    LoadScore best = current;
    std::size_t best_unit = units_.size();
    int best_device = -1;
    for (std::size_t u : candidates(loads, seen)) {
      const int from = loads.deviceOf()[units_[u].front()];
      for (int d = 0; d < count; ++d) {
        if (d == from || !unitRunsOn(problem_, units_[u], d)) continue;
        moveUnit(loads, u, d);
        if (fits(loads, d)) {
          LoadScore s;
          s.value = loads.objective(gpipe_, &s.spread);
          if (s.better(best)) {
            best = s;
            best_unit = u;
            best_device = d;
          }
        }
        moveUnit(loads, u, from);
      }
    }
    if (best_device < 0) break;
    moveUnit(loads, best_unit, best_device);
    current = best;
  }
  device_of = loads.deviceOf();
  return true;
}

}  // namespace

SolveResult solveLocalSearch(const Problem& problem, const SolveOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  SolveResult result;
  const LocalSearch search(problem);
  LoadScore best;
  std::vector<int> best_split;
  int starts = 0, failed_starts = 0;
  bool stopped = false;
  const int restarts = std::max(1, options.restarts);
  for (int r = 0; r < restarts && !stopped; ++r) {
    // One generator per restart, seeded from (seed, restart): a restart's split does not depend on
    // how the earlier ones went.
    std::seed_seq seq{static_cast<std::uint32_t>(options.seed),
                      static_cast<std::uint32_t>(options.seed >> 32), static_cast<std::uint32_t>(r)};
    std::mt19937_64 rng(seq);
    std::vector<int> split = search.randomStart(rng);
    ++starts;
    if (split.empty()) {
      ++failed_starts;
      continue;
    }
    stopped = !search.descend(split, options.budget);
    const LoadScore score = search.scoreOf(split);
    if (best_split.empty() || score.better(best)) {
      best = score;
      best_split = std::move(split);
    }
  }
  if (options.budget.interrupted()) {
    result.status = SolveStatus::Interrupted;
    result.message = "interrupted";
    return result;
  }
  if (best_split.empty()) {
    result.status = stopped ? SolveStatus::TimeLimit : SolveStatus::Infeasible;
    result.message = "local-search: none of " + std::to_string(starts) +
                     " random starts kept every accelerator within its memory";
    return result;
  }
  Placement& placement = result.placement;
  placement.device_of = std::move(best_split);
  placement.value = problem.objective.gpipe ? gpipeObjective(problem, placement.device_of)
                                            : evaluateThroughput(problem, placement.device_of).max_load;
  placement.stage_of = stagesOrDevices(problem, placement.device_of);
  result.value = placement.value;
  result.status = stopped ? SolveStatus::TimeLimit : SolveStatus::Feasible;
  result.gap = result.value > 0 ? 1.0 : 0.0;  // a heuristic: nothing proven
  std::ostringstream how;
  how << "best of " << starts << " random starts (seed " << options.seed << ")";
  if (failed_starts > 0) how << ", " << failed_starts << " of them over memory";
  if (stopped) how << ", stopped by the time limit";
  result.message = how.str();
  result.stats.seconds = secondsSince(started);
  return result;
}

}  // namespace placer
