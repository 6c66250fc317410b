#include "solvers/bounds/path_runs_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>

#include "core/evaluate.h"
#include "solvers/bounds/paths.h"
#include "solvers/bounds/round_off.h"

namespace placer {

namespace {

// Steps of the dynamic program (one run tried) over all paths and weights: about half a second on
// this machine, which a 20,000-node chain reaches (its runs are thousands of nodes long). A count
// rather than a clock, so the same input gives the same bound on every machine.
constexpr std::int64_t kMaxSteps = 100'000'000;

// How the devices' loads are summed: CPU cores' loads times lambda; computation times mu and
// transfers times nu (each at most 1, so a CPU core's load is at least its weighted sum too).
struct Weights {
  double lambda = 1, mu = 1, nu = 1;
};

// Every weighting tried: under overlap an accelerator's load is max(compute, in + out) (Max) or
// max(in, compute, out) (Duplex), at least mu compute + (1 - mu)(in + out) resp. + (1 - mu)(in +
// out) / 2; the CPU cores' weight relative to the accelerators' time per unit of CPU time.
std::vector<Weights> weightings(const Problem& problem, double cpu_scale) {
  std::vector<std::pair<double, double>> mix;
  switch (problem.objective.overlap) {
    case Overlap::None:
      mix = {{1, 1}};
      break;
    case Overlap::Max:
      mix = {{1, 0}, {0.75, 0.25}, {0.5, 0.5}};
      break;
    case Overlap::Duplex:
      mix = {{1, 0}, {0.75, 0.125}, {0.5, 0.25}};
      break;
  }
  std::vector<double> lambdas = {1};
  if (problem.devices.accelerators > 0 && problem.devices.cpus > 0) {
    lambdas.clear();
    for (double factor : {0.0, 0.125, 0.25, 0.5, 0.75, 1.0, 4.0 / 3, 2.0, 4.0, 8.0})
      lambdas.push_back(factor * cpu_scale);
  }
  std::vector<Weights> out;
  for (double lambda : lambdas) {
    for (auto [mu, nu] : mix)
      out.push_back({lambda, mu, nu});
  }
  return out;
}

// One path, its runs' costs and the other nodes' cheapest work.
class PathRuns {
 public:
  PathRuns(const Problem& problem, const std::vector<Vertex>& path, const std::vector<bool>& can_accelerator,
           const std::vector<bool>& can_cpu, const EdgeTransfers& transfers,
           const std::vector<std::vector<int>>& weights_of)
      : p_(problem), m_(path.size()), weights_of_(weights_of) {
    const OpGraph& g = problem.graph;
    std::vector<bool> on_path(boost::num_vertices(g), false);
    for (std::size_t i = 0; i < m_; ++i) {
      const Vertex v = path[i];
      on_path[v] = true;
      nodes_.push_back(v);
      acc_.push_back(can_accelerator[v] ? g[v].p_acc : kInfinity);
      cpu_.push_back(can_cpu[v] ? g[v].p_cpu : kInfinity);
      if (i + 1 < m_) {
        const Vertex w = path[i + 1];
        transfer_.push_back(transfers.cost(v, w));
        cpu_transfer_.push_back(transfers.cpuCost(v, w));
        colocated_.push_back(g[v].colocation && g[w].colocation && *g[v].colocation == *g[w].colocation);
      }
    }
    for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
      if (on_path[v]) continue;
      off_acc_.push_back(can_accelerator[v] ? g[v].p_acc : kInfinity);
      off_cpu_.push_back(can_cpu[v] ? g[v].p_cpu : kInfinity);
    }
    seen_.assign(problem.weights.size(), 0);
  }

  // Whether some cut of the path into runs that each fit in T, with the other nodes' cheapest work,
  // fits in the devices' weighted total (k + lambda l) T: if not, no placement has max-load T or
  // less. nullopt when the budget or the step count ran out.
  std::optional<bool> fits(double T, const Weights& w, const Budget& budget, std::int64_t& steps) {
    const DeviceSet& d = p_.devices;
    std::vector<double> best(m_ + 1, kInfinity);
    best[0] = 0;
    for (std::size_t i = 0; i < m_; ++i) {
      if (!std::isfinite(best[i]) || (i > 0 && colocated_[i - 1])) continue;
      if ((i & 63) == 0 && budget.exhausted()) return std::nullopt;
      const double in = i > 0 ? transfer_[i - 1] : 0, cpu_in = i > 0 ? cpu_transfer_[i - 1] : 0;
      double acc = 0, cpu = 0, memory = 0;
      bool on_accelerator = d.accelerators > 0, on_cpu = d.cpus > 0;
      ++stamp_;
      for (std::size_t j = i; j < m_ && (on_accelerator || on_cpu); ++j) {
        if (++steps > kMaxSteps) return std::nullopt;
        acc += acc_[j];
        cpu += cpu_[j];
        memory += p_.graph[nodes_[j]].memory;
        for (int weight : weights_of_[nodes_[j]]) {
          if (seen_[weight] != stamp_) {
            seen_[weight] = stamp_;
            memory += p_.weights[weight].bytes;
          }
        }
        // Every mode's load is at least the computation, and memory only grows: past T or M the run
        // cannot get longer on that kind.
        on_accelerator = on_accelerator && std::isfinite(acc) && acc <= T && memory <= d.memory;
        on_cpu = on_cpu && std::isfinite(cpu) && cpu <= T;
        const std::size_t end = j + 1;
        if (end < m_ && colocated_[end - 1]) continue;  // the next node is on this run's device
        const double out = end < m_ ? transfer_[end - 1] : 0, cpu_out = end < m_ ? cpu_transfer_[end - 1] : 0;
        double cost = kInfinity;
        if (on_accelerator && acceleratorLoad(p_.objective.overlap, acc, in, out) <= T)
          cost = w.mu * acc + w.nu * (in + out);
        if (on_cpu && cpu + cpu_in + cpu_out <= T)
          cost = std::min(cost, w.lambda * (w.mu * cpu + w.nu * (cpu_in + cpu_out)));
        best[end] = std::min(best[end], best[i] + cost);
      }
    }
    double total = best[m_];
    for (std::size_t k = 0; k < off_acc_.size() && std::isfinite(total); ++k)
      total += std::min(w.mu * off_acc_[k], d.cpus > 0 ? w.lambda * w.mu * off_cpu_[k] : kInfinity);
    return total <= (d.accelerators + w.lambda * d.cpus) * T;
  }

 private:
  const Problem& p_;
  const std::size_t m_;
  const std::vector<std::vector<int>>& weights_of_;  // per node: the shared weights it reads
  std::vector<Vertex> nodes_;
  std::vector<double> acc_, cpu_;                    // per path node: +inf where that kind cannot hold it
  std::vector<double> transfer_, cpu_transfer_;      // per boundary i | i + 1
  std::vector<bool> colocated_;                      // per boundary: never cut
  std::vector<double> off_acc_, off_cpu_;            // the other nodes
  std::vector<std::int64_t> seen_;                   // per shared weight: the run that counted it
  std::int64_t stamp_ = 0;
};

}  // namespace

PathRunsBound pathRunsBound(const Problem& problem, const std::vector<bool>& can_accelerator,
                            const std::vector<bool>& can_cpu, double floor, const Budget& budget) {
  PathRunsBound out{floor, false};
  const OpGraph& g = problem.graph;
  if (problem.objective.gpipe || problem.devices.count() == 0) return out;
  const std::vector<Vertex> order = orderBreakingCycles(g);
  if (order.empty()) return out;
  auto cheapest = [&](Vertex v) {
    return std::min(can_accelerator[v] ? g[v].p_acc : kInfinity, can_cpu[v] ? g[v].p_cpu : kInfinity);
  };
  double acc_work = 0, cpu_work = 0, scale = 0;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (!std::isfinite(cheapest(v))) return out;  // no device holds v: the instance is infeasible
    scale += cheapest(v);
    if (can_accelerator[v] && can_cpu[v]) {
      acc_work += g[v].p_acc;
      cpu_work += g[v].p_cpu;
    }
  }
  scale = std::max(scale / problem.devices.count(), 1e-12);
  const double cpu_scale = cpu_work > 0 ? acc_work / cpu_work : 1.0;
  const EdgeTransfers transfers(problem);
  auto finite = [](double x) { return std::isfinite(x) ? x : 0.0; };
  const std::function<double(Vertex)> node_weights[] = {
      cheapest,
      [&](Vertex v) { return finite(g[v].p_acc); },
  };
  const std::function<double(Vertex, Vertex)> edge_weights[] = {
      [](Vertex, Vertex) { return 0.0; },
      [&](Vertex u, Vertex v) { return transfers.cost(u, v); },
  };
  const std::vector<std::vector<int>> weights_of = weightsOfVertices(problem);
  double best = floor;
  std::int64_t steps = 0;
  // Every T tried below `best` failed the test, so best proves a bound even when the budget or the
  // step count stops the search.
  auto finish = [&](bool stopped) {
    out.cut_short = stopped && budget.exhausted();
    out.value = std::max(floor, best * (1 - kBoundSafety));
    return out;
  };
  for (std::size_t p = 0; p < std::size(node_weights); ++p) {
    PathRuns runs(problem, heaviestPath(g, order, node_weights[p], edge_weights[p]), can_accelerator, can_cpu,
                  transfers, weights_of);
    for (const Weights& w : weightings(problem, cpu_scale)) {
      // Infeasible at `lo`, feasible at `hi`: the bound is lo.
      std::optional<bool> at_best = runs.fits(best, w, budget, steps);
      if (!at_best) return finish(true);
      if (*at_best) continue;  // this weighting cannot do better
      double lo = best, hi = std::max(2 * best, scale);
      bool stopped = false, bracketed = false;
      for (int doubling = 0; doubling < 64 && !stopped && !bracketed; ++doubling) {
        std::optional<bool> ok = runs.fits(hi, w, budget, steps);
        if (!ok) stopped = true;
        else if (*ok) bracketed = true;
        else {
          lo = hi;
          hi *= 2;
        }
      }
      if (!bracketed && !stopped) continue;  // never fits: no run cut exists at all; nothing to add
      for (int i = 0; i < 40 && !stopped && hi - lo > 1e-10 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        std::optional<bool> ok = runs.fits(mid, w, budget, steps);
        if (!ok) stopped = true;
        else if (*ok) hi = mid;
        else lo = mid;
      }
      best = std::max(best, lo);
      if (stopped) return finish(true);
    }
  }
  return finish(false);
}

}  // namespace placer
