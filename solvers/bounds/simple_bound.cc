#include "solvers/bounds/simple_bound.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "solvers/bounds/boundary_floors.h"
#include "solvers/bounds/latency_path_bound.h"
#include "solvers/bounds/path_runs_bound.h"
#include "solvers/bounds/round_off.h"
#include "solvers/mip.h"

namespace placer {

namespace {

// An LP optimum is exact only up to the simplex's tolerances; the bound gives up this much so that
// it never exceeds an optimum it ties with.

// The nodes that must share a device (a colocation class, else the node alone), with what they need.
struct Unit {
  std::vector<Vertex> nodes;
  double acc_time = 0, cpu_time = 0;  // summed; +inf when a member cannot run there
  double own_memory = 0;              // bytes only these nodes hold
  std::set<int> weights;              // shared weights they read (indices into problem.weights)
  double standalone_memory = 0;       // own memory plus those weights: what one accelerator must hold
  bool on_accelerator = false, on_cpu = false;  // which kinds of device can hold the unit
};

// The unit's time on the cheapest kind of device that can hold it.
double cheapestTime(const Unit& u) {
  return std::min(u.on_accelerator ? u.acc_time : kInfinity, u.on_cpu ? u.cpu_time : kInfinity);
}

// The cheapest total work of the units: the time unit of the relaxations.
double cheapestTotal(const std::vector<Unit>& units) {
  double total = 0;
  for (const Unit& unit : units)
    total += cheapestTime(unit);
  return total;
}

// Per node, whether an accelerator and whether a CPU core may hold it: its unit's kinds (what the
// path bounds take).
struct DeviceKinds {
  std::vector<bool> accelerator, cpu;
};

DeviceKinds kindsOf(const std::vector<Unit>& units, std::size_t nodes) {
  DeviceKinds kinds{std::vector<bool>(nodes), std::vector<bool>(nodes)};
  for (const Unit& unit : units) {
    for (Vertex v : unit.nodes) {
      kinds.accelerator[v] = unit.on_accelerator;
      kinds.cpu[v] = unit.on_cpu;
    }
  }
  return kinds;
}

Expected<std::vector<Unit>> unitsOf(const Problem& problem) {
  const OpGraph& g = problem.graph;
  const DeviceSet& d = problem.devices;
  std::vector<Unit> units;
  std::map<int, std::size_t> unit_of_class;
  std::vector<std::size_t> unit_of(boost::num_vertices(g));
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    std::size_t u = units.size();
    if (g[v].colocation) {
      auto [it, inserted] = unit_of_class.try_emplace(*g[v].colocation, units.size());
      u = it->second;
      if (inserted) units.emplace_back();
    } else {
      units.emplace_back();
    }
    unit_of[v] = u;
    Unit& unit = units[u];
    unit.nodes.push_back(v);
    unit.acc_time += g[v].p_acc;
    unit.cpu_time += g[v].p_cpu;
    unit.own_memory += g[v].memory;
  }
  for (std::size_t w = 0; w < problem.weights.size(); ++w) {
    for (Vertex r : problem.weights[w].readers)
      units[unit_of[r]].weights.insert(static_cast<int>(w));
  }
  for (Unit& unit : units) {
    unit.standalone_memory = unit.own_memory;
    for (int w : unit.weights)
      unit.standalone_memory += problem.weights[w].bytes;
    unit.on_accelerator = d.accelerators > 0 && std::isfinite(unit.acc_time) && unit.standalone_memory <= d.memory;
    unit.on_cpu = d.cpus > 0 && std::isfinite(unit.cpu_time);
    if (!unit.on_accelerator && !unit.on_cpu) {
      const std::string what = unit.nodes.size() == 1 ? describeNode(g, unit.nodes.front())
                                                      : "the colocated group of " + describeNode(g, unit.nodes.front());
      return infeasible(what + " fits no device: " +
                        (d.accelerators == 0            ? std::string("there are no accelerators")
                         : !std::isfinite(unit.acc_time) ? std::string("accelerators do not support it")
                                                         : "it needs more than one accelerator's memory") +
                        (d.cpus == 0 ? " and there are no CPUs" : " and CPUs cannot run it"));
    }
  }
  return units;
}

// The fraction of a unit on accelerators: a variable in [0, 1], or fixed where only one kind fits.
mip::Var fractionVar(mip::Model& m, const Unit& unit, std::size_t index) {
  const double lower = unit.on_cpu ? 0.0 : 1.0, upper = unit.on_accelerator ? 1.0 : 0.0;
  return m.addContinuous(lower, upper, "a_" + std::to_string(index));
}

// The accelerators' memory row: sum of a_u * own memory + sum of y_w * weight bytes <= k M, with
// y_w >= a_u for every unit u reading w (an accelerator holding a reader holds the weight). Scaled
// by 1 / (k M).
void addMemoryRow(mip::Model& m, const Problem& problem, const std::vector<Unit>& units,
                  const std::vector<mip::Var>& a) {
  const DeviceSet& d = problem.devices;
  if (d.accelerators == 0 || !(d.memory > 0)) return;
  const double capacity = d.memory * d.accelerators;
  mip::LinExpr held;
  std::vector<mip::Var> y(problem.weights.size());
  for (std::size_t w = 0; w < problem.weights.size(); ++w) {
    y[w] = m.addContinuous(0, 1, "y_" + std::to_string(w));
    held.add(y[w], problem.weights[w].bytes / capacity);
  }
  for (std::size_t u = 0; u < units.size(); ++u) {
    held.add(a[u], units[u].own_memory / capacity);
    for (int w : units[u].weights)
      m.addGe(y[w], a[u], "holds");
  }
  m.addLe(held, 1.0, "memory");
}

// The relaxation's optimum in seconds; nullopt when the budget ran out first.
Expected<std::optional<double>> solveRelaxation(const mip::Model& m, double unit, const Budget& budget,
                                                mip::Backend backend) {
  mip::Options options;
  options.backend = backend;
  options.time_limit = budget.remaining();
  options.stop = budget.stopFlag();
  const mip::Result r = mip::solve(m, options);
  if (r.status == mip::Status::Infeasible)
    return infeasible("the accelerators' memory cannot hold what CPUs cannot run");
  if (r.status == mip::Status::Optimal) return std::optional<double>(std::max(0.0, r.objective * unit * (1 - kBoundSafety)));
  if (budget.exhausted() || r.interrupted) return std::optional<double>();
  return internalError("the bound's relaxation: " + r.message);
}

// The pigeonhole part: for any set S of units, a device whose computation is at most T holds at most
// c(T) of them, the largest count whose smallest times on that kind sum to at most T; so when every
// placement puts all of S somewhere, T >= the least T with k c_acc(T) + l c_cpu(T) >= |S|. With S the
// n units of largest cheapest time, for every n up to kMaxPigeonhole: 24 layers of 3.5-3.7 ms on 6
// accelerators (CPUs ten times slower) cannot go 4 to a device, so some device computes 5 of them.
constexpr std::size_t kMaxPigeonhole = 512;

double pigeonholeBound(const Problem& problem, const std::vector<Unit>& units) {
  const DeviceSet& d = problem.devices;
  std::vector<std::size_t> order(units.size());
  for (std::size_t u = 0; u < units.size(); ++u)
    order[u] = u;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) {
                     return cheapestTime(units[a]) > cheapestTime(units[b]);
                   });
  if (order.size() > kMaxPigeonhole) order.resize(kMaxPigeonhole);
  double best = 0;
  std::vector<double> acc, cpu, candidates;
  for (std::size_t n = static_cast<std::size_t>(d.count()) + 1; n <= order.size(); ++n) {
    // The times of the n largest on each kind (+inf where the kind cannot hold the unit), ascending,
    // as prefix sums: c_kind(T) = the number of prefix sums <= T.
    acc.clear();
    cpu.clear();
    for (std::size_t i = 0; i < n; ++i) {
      acc.push_back(units[order[i]].on_accelerator ? units[order[i]].acc_time : kInfinity);
      cpu.push_back(units[order[i]].on_cpu ? units[order[i]].cpu_time : kInfinity);
    }
    std::sort(acc.begin(), acc.end());
    std::sort(cpu.begin(), cpu.end());
    for (std::size_t i = 1; i < n; ++i) {
      acc[i] += acc[i - 1];
      cpu[i] += cpu[i - 1];
    }
    auto holds = [&](double t) {
      const auto in_acc = std::upper_bound(acc.begin(), acc.end(), t) - acc.begin();
      const auto in_cpu = std::upper_bound(cpu.begin(), cpu.end(), t) - cpu.begin();
      return static_cast<double>(d.accelerators) * static_cast<double>(in_acc) +
                 static_cast<double>(d.cpus) * static_cast<double>(in_cpu) >=
             static_cast<double>(n);
    };
    // The least T at which the devices can hold n units is one of the prefix sums.
    candidates.clear();
    for (double t : acc) {
      if (std::isfinite(t)) candidates.push_back(t);
    }
    for (double t : cpu) {
      if (std::isfinite(t)) candidates.push_back(t);
    }
    std::sort(candidates.begin(), candidates.end());
    const auto first = std::partition_point(candidates.begin(), candidates.end(), [&](double t) { return !holds(t); });
    if (first == candidates.end()) continue;  // no T holds them: the packing cannot tell (memory will)
    best = std::max(best, *first);
  }
  return best;
}

// The packing part of the throughput bound: the work relaxation with the large units kept whole.
// Splitting every unit fractionally between the kinds lets 24 layers of 3.6 ms spread over 6
// accelerators at 15.2 ms each; kept whole, some accelerator holds 5 of them (or 4 and the output
// layer). Units of at least kLargeShare of the LP's value (at most kMaxLarge of them, the largest)
// go whole to one device each — a column per accelerator and per CPU core, each with its own load
// and, for accelerators, its own memory (shared weights held once per accelerator) — and the rest
// stay fractional in the kinds' total work and memory rows. Devices of a kind are interchangeable,
// so the i-th largest unit goes to one of the first i + 1 devices of its kind (relabel the devices
// by the largest unit each holds). Every placement gives a point of this program with T = its
// largest computation, so the program's optimum, or the bound its solver has proven when the time
// runs out, is at most the optimum in every space and every overlap mode.
constexpr double kLargeShare = 0.05;
constexpr std::size_t kMaxLarge = 80;
constexpr double kPackingSafety = 1e-7;  // a MIP's optimum is exact only up to its tolerances

double packingBound(const Problem& problem, const std::vector<Unit>& units, double floor, const Budget& budget,
                    mip::Backend backend) {
  const DeviceSet& d = problem.devices;
  std::vector<std::size_t> large;
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (cheapestTime(units[u]) >= kLargeShare * floor && cheapestTime(units[u]) > 0) large.push_back(u);
  }
  std::stable_sort(large.begin(), large.end(),
                   [&](std::size_t a, std::size_t b) {
                     return cheapestTime(units[a]) > cheapestTime(units[b]);
                   });
  if (large.size() > kMaxLarge) large.resize(kMaxLarge);
  // With no more large units than devices, each can have a device of its own: nothing to gain over
  // the per-unit part.
  if (large.size() <= static_cast<std::size_t>(d.count())) return 0;
  std::vector<bool> is_large(units.size(), false);
  for (std::size_t u : large)
    is_large[u] = true;

  // Times in units of the floor (the LP's value), memory in units of one accelerator's.
  const double unit_time = floor;
  const int acc_columns = std::min<int>(d.accelerators, static_cast<int>(large.size()));
  const int cpu_columns = std::min<int>(d.cpus, static_cast<int>(large.size()));
  mip::Model m;
  const mip::Var t = m.addContinuous(1.0, mip::kUnbounded, "T");
  std::vector<mip::LinExpr> load(acc_columns + cpu_columns), memory(acc_columns);
  mip::LinExpr acc_work, cpu_work, all_memory;
  const bool memory_rows = d.accelerators > 0 && d.memory > 0;
  // held[w][c]: accelerator c holds shared weight w (continuous: only <= rows see it); y[w]: some
  // accelerator does.
  std::vector<std::vector<mip::Var>> held(problem.weights.size(), std::vector<mip::Var>(acc_columns));
  std::vector<mip::Var> y(problem.weights.size());
  for (std::size_t w = 0; w < problem.weights.size(); ++w) {
    y[w] = m.addContinuous(0, 1, "y_" + std::to_string(w));
    all_memory.add(y[w], problem.weights[w].bytes / d.memory);
  }
  for (std::size_t i = 0; i < large.size(); ++i) {
    const Unit& unit = units[large[i]];
    mip::LinExpr one;
    for (int c = 0; c < acc_columns + cpu_columns; ++c) {
      const bool accelerator = c < acc_columns;
      const int index = accelerator ? c : c - acc_columns;
      if (accelerator ? !unit.on_accelerator : !unit.on_cpu) continue;
      if (index > static_cast<int>(i)) continue;  // symmetry: the i-th unit on one of the first i + 1
      const mip::Var x = m.addBinary("x_" + std::to_string(i) + "_" + std::to_string(c));
      one += x;
      const double time = (accelerator ? unit.acc_time : unit.cpu_time) / unit_time;
      load[c].add(x, time);
      (accelerator ? acc_work : cpu_work).add(x, time);
      if (!accelerator || !memory_rows) continue;
      memory[c].add(x, unit.own_memory / d.memory);
      all_memory.add(x, unit.own_memory / d.memory);
      for (int w : unit.weights) {
        if (held[w][c].index < 0) {
          held[w][c] = m.addContinuous(0, 1, "held_" + std::to_string(w) + "_" + std::to_string(c));
          memory[c].add(held[w][c], problem.weights[w].bytes / d.memory);
        }
        m.addGe(held[w][c], x, "holds");
        m.addGe(y[w], x, "held_somewhere");
      }
    }
    m.addEq(one, 1.0, "one_device");
  }
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (is_large[u]) continue;
    const Unit& unit = units[u];
    const mip::Var a = fractionVar(m, unit, u);
    if (unit.on_accelerator) acc_work.add(a, unit.acc_time / unit_time);
    if (unit.on_cpu) cpu_work += (unit.cpu_time / unit_time) * (1.0 - mip::LinExpr(a));
    if (!memory_rows) continue;
    all_memory.add(a, unit.own_memory / d.memory);
    for (int w : unit.weights)
      m.addGe(y[w], a, "held_somewhere");
  }
  for (int c = 0; c < acc_columns + cpu_columns; ++c) {
    if (!load[c].terms().empty()) m.addLe(load[c], t, "load");
  }
  for (int c = 0; c < acc_columns && memory_rows; ++c) {
    if (!memory[c].terms().empty()) m.addLe(memory[c], 1.0, "memory");
  }
  if (d.accelerators > 0) m.addLe(acc_work, static_cast<double>(d.accelerators) * t, "accelerator_work");
  if (d.cpus > 0) m.addLe(cpu_work, static_cast<double>(d.cpus) * t, "cpu_work");
  if (memory_rows) m.addLe(all_memory, static_cast<double>(d.accelerators), "memory");
  m.minimize(t);

  mip::Options options;
  options.backend = backend;
  options.time_limit = budget.remaining();
  options.stop = budget.stopFlag();
  const mip::Result r = mip::solve(m, options);
  double proven = 0;
  if (r.status == mip::Status::Optimal) proven = r.objective;
  else if (r.status == mip::Status::Feasible || r.status == mip::Status::NoSolution) proven = r.bound;
  if (!std::isfinite(proven)) return 0;
  return std::max(0.0, proven * unit_time * (1 - kPackingSafety));
}

// The work relaxation: the least T at which a fractional split of every unit between accelerators
// and CPUs has the accelerators' work <= k T, the CPUs' <= l T, and the accelerators' memory
// (each shared weight once) <= k M; the accelerator work the CPUs take over at most `per_cpu` a core
// (kInfinity: no such limit); `acc_transfers` (seconds) added to the accelerators' work (the
// boundary floors, boundary_floors.h). `total` is the time unit (the cheapest total work), `floor` a
// value T is known to reach. nullopt when the budget ran out first.
Expected<std::optional<double>> workRelaxation(const Problem& problem, const std::vector<Unit>& units,
                                               double total, double floor, double per_cpu,
                                               const Budget& budget, mip::Backend backend,
                                               double acc_transfers = 0) {
  const DeviceSet& d = problem.devices;
  mip::Model m;
  const mip::Var t = m.addContinuous(floor / total, mip::kUnbounded, "T");
  std::vector<mip::Var> a;
  mip::LinExpr acc_work, cpu_work, taken_over;
  for (std::size_t u = 0; u < units.size(); ++u) {
    const Unit& unit = units[u];
    a.push_back(fractionVar(m, unit, u));
    if (unit.on_accelerator) acc_work.add(a.back(), unit.acc_time / total);
    if (unit.on_cpu) cpu_work += (unit.cpu_time / total) * (1.0 - mip::LinExpr(a.back()));
    if (unit.on_accelerator && unit.on_cpu)
      taken_over += (unit.acc_time / total) * (1.0 - mip::LinExpr(a.back()));
  }
  if (d.accelerators > 0)
    m.addLe(acc_work + acc_transfers / total, static_cast<double>(d.accelerators) * t, "accelerator_work");
  if (d.cpus > 0) m.addLe(cpu_work, static_cast<double>(d.cpus) * t, "cpu_work");
  if (d.cpus > 0 && std::isfinite(per_cpu)) m.addLe(taken_over, d.cpus * per_cpu / total, "taken_over");
  addMemoryRow(m, problem, units, a);
  m.minimize(t);
  return solveRelaxation(m, total, budget, backend);
}

// The accelerators' boundary floors, where they add to a device's computation (overlap None; not
// the GPipe objective, which sums two devices' loads): F(k) and c_in + c_out (boundary_floors.h).
std::optional<BoundaryFloors> floorsThatApply(const Problem& problem) {
  if (problem.objective.goal != Goal::Throughput || problem.objective.overlap != Overlap::None ||
      problem.objective.gpipe)
    return std::nullopt;
  const BoundaryFloors floors = boundaryFloors(problem);
  if (!(floors.total > 0)) return std::nullopt;
  return floors;
}

// The work relaxation with the boundary floors, given `proven`, a bound on every placement in the
// space: it holds when `proven` is at least c_in + c_out (boundary_floors.h). nullopt when it does
// not apply, or the budget ran out.
Expected<std::optional<double>> withBoundaryFloors(const Problem& problem, const std::vector<Unit>& units,
                                                   double total, double proven, double per_cpu,
                                                   const Budget& budget, mip::Backend backend) {
  const std::optional<BoundaryFloors> floors = floorsThatApply(problem);
  if (!floors || proven < floors->per_set) return std::optional<double>();
  return workRelaxation(problem, units, total, proven, per_cpu, budget, backend, floors->total);
}

}  // namespace

Expected<SimpleBound> throughputSimpleBound(const Problem& problem, const Budget& budget, mip::Backend backend) {
  auto units = unitsOf(problem);
  if (!units) return units.status();
  SimpleBound out;
  double total = 0;  // the cheapest total work: the time unit of the relaxation
  for (const Unit& unit : *units) {
    const double cheapest = cheapestTime(unit);
    total += cheapest;
    if (cheapest > out.value) {
      out.value = cheapest;
      out.reason = "node";
    }
  }
  if (!(total > 0)) return out;
  auto relaxed = workRelaxation(problem, *units, total, out.value, kInfinity, budget, backend);
  if (!relaxed) return relaxed.status();
  out.cut_short = !*relaxed;
  if (*relaxed && **relaxed > out.value) {
    out.value = **relaxed;
    out.reason = "work";
  }
  if (const double counted = pigeonholeBound(problem, *units); counted > out.value) {
    out.value = counted;
    out.reason = "pigeonhole";
  }
  if (*relaxed && **relaxed > 0) {
    // The large units kept whole: a small integer program, within a tenth of the budget (1 s without
    // one), so that the bound stays cheap next to what it certifies.
    const double remaining = budget.remaining();
    const double seconds = std::isfinite(remaining) ? remaining / 10 : 1.0;
    const double packed = packingBound(problem, *units, out.value, budget.within(seconds), backend);
    if (packed > out.value) {
      out.value = packed;
      out.reason = "packing";
    }
  }
  out.compute = out.value;
  // What the accelerators pay at their boundaries, with the work (boundary_floors.h).
  auto floored = withBoundaryFloors(problem, *units, total, out.value, kInfinity, budget, backend);
  if (!floored) return floored.status();
  if (*floored && **floored > out.value) {
    out.value = **floored;
    out.reason = "boundaries";
  }
  // Communication on every device, along a path (solvers/bounds/path_runs_bound.h).
  const DeviceKinds kinds = kindsOf(*units, boost::num_vertices(problem.graph));
  const PathRunsBound along_path = pathRunsBound(problem, kinds.accelerator, kinds.cpu, out.value, budget);
  out.cut_short = out.cut_short || along_path.cut_short;
  if (along_path.value > out.value) {
    out.value = along_path.value;
    out.reason = "transfers";
  }
  return out;
}

Expected<SimpleBound> latencySimpleBound(const Problem& problem, const Budget& budget, mip::Backend backend) {
  auto units = unitsOf(problem);
  if (!units) return units.status();
  const OpGraph& g = problem.graph;
  const DeviceSet& d = problem.devices;
  const double total = cheapestTotal(*units);
  SimpleBound out;
  out.reason = "path";
  if (!(total > 0)) return out;
  mip::Model m;
  const mip::Var t = m.addContinuous(0, mip::kUnbounded, "T");
  std::vector<mip::Var> a;
  std::vector<std::size_t> unit_of(boost::num_vertices(g));
  mip::LinExpr acc_work;
  for (std::size_t u = 0; u < units->size(); ++u) {
    a.push_back(fractionVar(m, (*units)[u], u));
    for (Vertex v : (*units)[u].nodes)
      unit_of[v] = u;
    if ((*units)[u].on_accelerator) acc_work.add(a.back(), (*units)[u].acc_time / total);
  }
  // A node's time: p_cpu + a (p_acc - p_cpu), or the one kind's time where only one fits.
  auto duration = [&](Vertex v) {
    const Unit& unit = (*units)[unit_of[v]];
    if (!unit.on_cpu) return mip::LinExpr(g[v].p_acc / total);
    if (!unit.on_accelerator) return mip::LinExpr(g[v].p_cpu / total);
    return g[v].p_cpu / total + ((g[v].p_acc - g[v].p_cpu) / total) * mip::LinExpr(a[unit_of[v]]);
  };
  // f_v: when v's computation ends in some schedule that processes each accelerator's nodes one by
  // one in a topological order (the latency model's pieces make their outputs available no earlier).
  std::vector<mip::Var> f;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    f.push_back(m.addContinuous(0, mip::kUnbounded, "f_" + std::to_string(v)));
    m.addGe(f.back(), duration(v), "own");
    m.addGe(t, f.back(), "latency");
  }
  // Paths only where there are no cycles (a contracted graph may have them; its work rows still hold).
  const bool acyclic = findCycle(g, false).empty();
  for (auto [e, end] = boost::edges(g); acyclic && e != end; ++e) {
    if (g[*e].artificial) continue;
    const Vertex u = boost::source(*e, g), v = boost::target(*e, g);
    m.addGe(f[v], mip::LinExpr(f[u]) + duration(v), "path");
  }
  if (d.accelerators > 0) m.addLe(acc_work, static_cast<double>(d.accelerators) * t, "accelerator_work");
  addMemoryRow(m, problem, *units, a);
  m.minimize(t);
  // The transfers and memory splits along a path (solvers/bounds/latency_path_bound.h): first, as
  // it takes under a second on the Table 4 workloads where the relaxation may use up the budget on
  // a large graph.
  const DeviceKinds kinds = kindsOf(*units, boost::num_vertices(g));
  const PathBound along_path = latencyPathBound(problem, kinds.accelerator, kinds.cpu, budget);
  out.cut_short = along_path.cut_short;
  auto relaxed = solveRelaxation(m, total, budget, backend);
  if (!relaxed) return relaxed.status();
  if (*relaxed) {
    out.value = **relaxed;
  } else {
    out.cut_short = true;
    out.reason = "node";  // the relaxation ran out of time: the slowest node's cheapest time
    for (const Unit& unit : *units) {
      for (Vertex v : unit.nodes) {
        out.value = std::max(out.value, std::min(unit.on_accelerator ? g[v].p_acc : kInfinity,
                                                 unit.on_cpu ? g[v].p_cpu : kInfinity));
      }
    }
  }
  if (along_path.value > out.value) {
    out.value = along_path.value;
    out.reason = "transfers";
  }
  return out;
}

Expected<SimpleBound> simpleBound(const Problem& problem, const Budget& budget, mip::Backend backend) {
  return problem.objective.goal == Goal::Latency ? latencySimpleBound(problem, budget, backend)
                                                 : throughputSimpleBound(problem, budget, backend);
}

Expected<std::optional<double>> workBound(const Problem& problem, double per_cpu, const Budget& budget,
                                          mip::Backend backend) {
  auto units = unitsOf(problem);
  if (!units) return units.status();
  const double total = cheapestTotal(*units);
  if (!(total > 0)) return std::optional<double>(0.0);
  auto relaxed = workRelaxation(problem, *units, total, 0, per_cpu, budget, backend);
  if (!relaxed || !*relaxed) return relaxed;
  // The boundary floors, which hold once the relaxation shows every max-load at least c_in + c_out.
  auto floored = withBoundaryFloors(problem, *units, total, **relaxed, per_cpu, budget, backend);
  if (!floored) return floored.status();
  return std::optional<double>(std::max(**relaxed, floored->value_or(0.0)));
}

}  // namespace placer
