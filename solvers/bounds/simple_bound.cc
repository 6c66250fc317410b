#include "solvers/bounds/simple_bound.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "solvers/bounds/latency_path_bound.h"
#include "solvers/mip.h"

namespace placer {

namespace {

// An LP optimum is exact only up to the simplex's tolerances; the bound gives up this much so that
// it never exceeds an optimum it ties with.
constexpr double kLpSafety = 1e-9;

// The nodes that must share a device (a colocation class, else the node alone), with what they need.
struct Unit {
  std::vector<Vertex> nodes;
  double acc_time = 0, cpu_time = 0;  // summed; +inf when a member cannot run there
  double own_memory = 0;              // bytes only these nodes hold
  std::set<int> weights;              // shared weights they read (indices into problem.weights)
  double standalone_memory = 0;       // own memory plus those weights: what one accelerator must hold
  bool on_accelerator = false, on_cpu = false;  // which kinds of device can hold the unit
};

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
  if (r.status == mip::Status::Optimal) return std::optional<double>(std::max(0.0, r.objective * unit * (1 - kLpSafety)));
  if (budget.exhausted() || r.interrupted) return std::optional<double>();
  return internalError("the bound's relaxation: " + r.message);
}

}  // namespace

Expected<SimpleBound> throughputSimpleBound(const Problem& problem, const Budget& budget, mip::Backend backend) {
  auto units = unitsOf(problem);
  if (!units) return units.status();
  const DeviceSet& d = problem.devices;
  SimpleBound out;
  double total = 0;  // the cheapest total work: the time unit of the relaxation
  for (const Unit& unit : *units) {
    const double cheapest = std::min(unit.on_accelerator ? unit.acc_time : kInfinity,
                                     unit.on_cpu ? unit.cpu_time : kInfinity);
    total += cheapest;
    if (cheapest > out.value) {
      out.value = cheapest;
      out.reason = "node";
    }
  }
  if (!(total > 0)) return out;
  mip::Model m;
  const mip::Var t = m.addContinuous(out.value / total, mip::kUnbounded, "T");
  std::vector<mip::Var> a;
  mip::LinExpr acc_work, cpu_work;
  for (std::size_t u = 0; u < units->size(); ++u) {
    const Unit& unit = (*units)[u];
    a.push_back(fractionVar(m, unit, u));
    if (unit.on_accelerator) acc_work.add(a.back(), unit.acc_time / total);
    if (unit.on_cpu) cpu_work += (unit.cpu_time / total) * (1.0 - mip::LinExpr(a.back()));
  }
  if (d.accelerators > 0) m.addLe(acc_work, static_cast<double>(d.accelerators) * t, "accelerator_work");
  if (d.cpus > 0) m.addLe(cpu_work, static_cast<double>(d.cpus) * t, "cpu_work");
  addMemoryRow(m, problem, *units, a);
  m.minimize(t);
  auto relaxed = solveRelaxation(m, total, budget, backend);
  if (!relaxed) return relaxed.status();
  if (*relaxed && **relaxed > out.value) {
    out.value = **relaxed;
    out.reason = "work";
  }
  return out;
}

Expected<SimpleBound> latencySimpleBound(const Problem& problem, const Budget& budget, mip::Backend backend) {
  auto units = unitsOf(problem);
  if (!units) return units.status();
  const OpGraph& g = problem.graph;
  const DeviceSet& d = problem.devices;
  double total = 0;
  for (const Unit& unit : *units)
    total += std::min(unit.on_accelerator ? unit.acc_time : kInfinity, unit.on_cpu ? unit.cpu_time : kInfinity);
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
  auto relaxed = solveRelaxation(m, total, budget, backend);
  if (!relaxed) return relaxed.status();
  // The transfers and memory splits along a path (solvers/bounds/latency_path_bound.h).
  std::vector<bool> can_accelerator(boost::num_vertices(g)), can_cpu(boost::num_vertices(g));
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    can_accelerator[v] = (*units)[unit_of[v]].on_accelerator;
    can_cpu[v] = (*units)[unit_of[v]].on_cpu;
  }
  const double along_path = latencyPathBound(problem, can_accelerator, can_cpu, budget);
  if (*relaxed) {
    out.value = **relaxed;
  } else {
    out.reason = "node";  // the relaxation ran out of time: the slowest node's cheapest time
    for (const Unit& unit : *units) {
      for (Vertex v : unit.nodes) {
        out.value = std::max(out.value, std::min(unit.on_accelerator ? g[v].p_acc : kInfinity,
                                                 unit.on_cpu ? g[v].p_cpu : kInfinity));
      }
    }
  }
  if (along_path > out.value) {
    out.value = along_path;
    out.reason = "transfers";
  }
  return out;
}

Expected<SimpleBound> simpleBound(const Problem& problem, const Budget& budget, mip::Backend backend) {
  return problem.objective.goal == Goal::Latency ? latencySimpleBound(problem, budget, backend)
                                                 : throughputSimpleBound(problem, budget, backend);
}

}  // namespace placer
