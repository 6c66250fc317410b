#include "solvers/bounds/pooled_dp_bound.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "solvers/bounds/bypass.h"
#include "solvers/bounds/round_off.h"
#include "solvers/capacity_relaxation.h"
#include "solvers/dp/block_walker.h"
#include "solvers/dp/ideal_lattice.h"
#include "solvers/dp/instance.h"
#include "solvers/dp/table.h"
#include "solvers/dp/throughput_dp.h"

namespace placer {

namespace {

// The bisection stops once the bound is within this fraction of the highest B it could still prove.
constexpr double kConverged = 1e-3;

// A bypassed graph with its lattice, ready for the DP, and per ideal what it asks of the devices.
struct Relaxed {
  Bypassed bypassed;
  dp::DpInstance instance;
  IdealLattice lattice;
  std::vector<CapacityRelaxation::Work> work;
};

// The relaxation that tells which entries can lie on a split within a bound: the bypassed graph's
// units alone (the pool may go anywhere), a core taking over at most `cpu_take`.
CapacityRelaxation capacityOf(const Relaxed& r, double cpu_take) {
  const DeviceSet& d = r.bypassed.problem.devices;
  CapacityRelaxation relaxation = dp::unitsRelaxation(r.instance, d);
  if (d.cpus > 0) relaxation.limitPerCpu(cpu_take);
  return relaxation;
}

// The bypassed graph of the first `count` candidates (the most floating), with its lattice if it
// has at most `max_ideals` ideals; nullopt otherwise (or when the budget ends).
std::optional<Relaxed> relaxedAt(const Problem& problem, const std::vector<BypassCandidate>& candidates,
                                 std::size_t count, std::int64_t max_ideals, const Budget& budget) {
  std::vector<bool> bypass(boost::num_vertices(problem.graph), false);
  for (std::size_t i = 0; i < count; ++i)
    bypass[candidates[i].vertex] = true;
  Relaxed r{bypassOperators(problem, bypass), {}, {}, {}};
  r.instance = dp::prepareInstance(r.bypassed.problem, /*linearize=*/false);
  if (!buildLattice(r.instance.preds, max_ideals, budget, nullptr, r.lattice)) return std::nullopt;
  r.work = dp::workOfIdeals(r.instance, r.lattice, r.bypassed.problem.devices);
  return r;
}

// The fewest candidates, the most floating first and all of a slack or none, whose bypassed graph
// has a lattice within the limit: a binary search over the slacks, as bypassing more never adds an
// ideal (each ideal of the bypassed graph is the restriction of one of the graph's).
std::optional<Relaxed> smallestRelaxation(const Problem& problem, const PooledDpOptions& options,
                                          const Budget& budget) {
  const std::vector<BypassCandidate> candidates = bypassCandidates(problem);
  // counts[i]: how many candidates have a slack of at least the i-th largest (counts[0] = 0: none).
  std::vector<std::size_t> counts = {0};
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i + 1 == candidates.size() || candidates[i + 1].slack != candidates[i].slack) counts.push_back(i + 1);
  }
  std::optional<Relaxed> best;
  std::size_t lo = 0, hi = counts.size();  // the answer's index is in [lo, hi); hi: none fits
  while (lo < hi && !budget.exhausted()) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (auto r = relaxedAt(problem, candidates, counts[mid], options.max_ideals, budget)) {
      best = std::move(r);
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  if (budget.exhausted()) return std::nullopt;
  return best;
}

// The least, over splits of the bypassed graph with every block within `cap`, of the accelerators'
// loads plus the cores' blocks' accelerator time; +inf when there is none, nullopt when the budget
// ends first.
std::optional<double> leastSum(const Relaxed& r, const CapacityRelaxation& capacity, double cap,
                               const Budget& budget) {
  const Problem& p = r.bypassed.problem;
  const int cpus = p.devices.cpus, accs = p.devices.accelerators;
  const std::int64_t ideals = r.lattice.size();
  const std::size_t row = static_cast<std::size_t>((cpus + 1) * (accs + 1));
  auto at = [&](std::int64_t ideal, int c, int a) {
    return static_cast<std::size_t>(ideal) * row + static_cast<std::size_t>(c * (accs + 1) + a);
  };
  std::vector<double> f(static_cast<std::size_t>(ideals) * row, kInfinity);
  std::fill(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(row), 0.0);
  const double limit = cap * (1 + kBoundSafety);
  dp::BlockWalker<1> walker(r.instance.units, r.instance.touches, r.instance.weight_touches, p, r.lattice,
                            limit);
  std::vector<std::uint8_t> live(row);
  for (std::int32_t ideal = 1; ideal < ideals; ++ideal) {
    if (ideal % 256 == 0 && budget.exhausted()) return std::nullopt;
    // Only entries whose ideal fits its devices and whose rest fits the others, within the cap (the
    // pool left out, which may go anywhere), can lie on a split within it.
    bool any = false;
    for (int c = 0; c <= cpus; ++c) {
      for (int a = 0; a <= accs; ++a) {
        live[at(0, c, a)] = capacity.live(r.work[ideal], c, a, limit);
        any = any || live[at(0, c, a)];
      }
    }
    if (!any) continue;
    walker.walk(ideal, [&](std::int32_t sub, const dp::BlockState<1>& s) {
      const double acc = s.p_acc + s.comm_in + s.comm_out;
      if (s.unsupported == 0 && s.memory <= p.devices.memory && acc <= limit) {
        for (int c = 0; c <= cpus; ++c) {
          for (int a = 1; a <= accs; ++a) {
            if (live[at(0, c, a)])
              f[at(ideal, c, a)] = std::min(f[at(ideal, c, a)], f[at(sub, c, a - 1)] + acc);
          }
        }
      }
      if (s.p_cpu + s.cpu_comm <= limit) {
        for (int c = 1; c <= cpus; ++c) {
          for (int a = 0; a <= accs; ++a) {
            if (live[at(0, c, a)])
              f[at(ideal, c, a)] = std::min(f[at(ideal, c, a)], f[at(sub, c - 1, a)] + s.p_acc);
          }
        }
      }
    });
    // A device left unused adds nothing.
    for (int c = 0; c <= cpus; ++c) {
      for (int a = 0; a <= accs; ++a) {
        if (c > 0) f[at(ideal, c, a)] = std::min(f[at(ideal, c, a)], f[at(ideal, c - 1, a)]);
        if (a > 0) f[at(ideal, c, a)] = std::min(f[at(ideal, c, a)], f[at(ideal, c, a - 1)]);
      }
    }
  }
  return f[at(ideals - 1, cpus, accs)];
}

}  // namespace

std::optional<std::string> pooledDpBoundDoesNotApply(const Problem& problem) {
  if (problem.objective.goal != Goal::Throughput || problem.objective.gpipe)
    return "the objective is not max-load";
  if (problem.objective.overlap != Overlap::None) return "communication overlaps computation";
  if (problem.devices.mixed()) return "a machine of several accelerator kinds";
  if (problem.devices.accelerators == 0) return "the machine has no accelerator";
  const OpGraph& g = problem.graph;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].backward) return "a training graph (its contiguity is the forward graph's)";
  }
  if (Status s = checkContracted(problem); !s) return s.message();
  return std::nullopt;
}

Expected<std::optional<PooledDpBound>> pooledDpBound(const Problem& problem, double upper, double cpu_take,
                                                     const Budget& budget, const PooledDpOptions& options) {
  if (pooledDpBoundDoesNotApply(problem) || !std::isfinite(upper) || !(upper > 0))
    return std::optional<PooledDpBound>();
  std::optional<Relaxed> r = smallestRelaxation(problem, options, budget);
  if (!r) return std::optional<PooledDpBound>();
  const int k = problem.devices.accelerators;
  const double taken = problem.devices.cpus > 0 ? problem.devices.cpus * std::max(0.0, cpu_take) : 0.0;
  // Within B the relaxed split must fit: f(B) <= k B - P + l G(B), with G(B) <= G(upper).
  // (With room for round-off: the split behind `upper` must fit at `upper`.)
  auto fits = [&](double b, double least) {
    return least <= (k * b - r->bypassed.pool_acc + taken) * (1 + kBoundSafety) + kBoundSafety * b;
  };
  PooledDpBound out;
  out.bypassed = r->bypassed.count;
  out.pool = r->bypassed.pool_acc;
  out.ideals = r->lattice.size();
  const CapacityRelaxation capacity = capacityOf(*r, cpu_take);
  const std::optional<double> at_upper = leastSum(*r, capacity, upper, budget);
  if (!at_upper) return std::optional<PooledDpBound>();
  out.rounds = 1;
  // The least relaxed threshold B* (every B from it on fits) is at most the optimum. Where B fits,
  // B* <= B, and as f(B*) >= f(B): B* >= (f(B) + P - l G) / k.
  auto floorAt = [&](double least) { return (least + r->bypassed.pool_acc - taken) / k; };
  double lo = 0, hi = upper;
  if (!std::isfinite(*at_upper) || !fits(upper, *at_upper)) {
    lo = upper;  // no relaxed split within the upper bound: the split behind it is optimal
  } else {
    lo = std::min(upper, floorAt(*at_upper));
  }
  // Just above that floor first, where f is often flat (a split that fits higher up still fits
  // there): fitting, it ends the search. After a B that does not fit, halving.
  bool near_floor = true;
  while (hi - lo > kConverged * hi) {
    const double mid = near_floor ? std::min(0.5 * (lo + hi), lo * (1 + 0.5 * kConverged)) : 0.5 * (lo + hi);
    const std::optional<double> least = leastSum(*r, capacity, mid, budget);
    if (!least) {
      out.cut_short = true;
      break;
    }
    ++out.rounds;
    near_floor = std::isfinite(*least) && fits(mid, *least);
    if (near_floor) {
      hi = mid;
      lo = std::max(lo, std::min(mid, floorAt(*least)));
    } else {
      lo = mid;
    }
  }
  out.value = std::max(0.0, lo * (1 - kBoundSafety));
  return std::optional<PooledDpBound>(out);
}

}  // namespace placer
