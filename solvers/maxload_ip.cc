#include "solvers/maxload_ip.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "core/evaluate.h"
#include "solvers/bounds/simple_bound.h"
#include "solvers/ip_common.h"
#include "solvers/local_search.h"
#include "solvers/stages.h"

namespace placer {

using mip::LinExpr;
using mip::Var;

namespace {

// The columns a formulation assigns nodes to, and what each one is.
struct Layout {
  std::vector<bool> accelerator;          // per column
  std::vector<std::vector<int>> devices;  // groups of columns that form one device
  // Contiguous layout only: stage s is columns 2s (accelerator) and 2s+1 (CPU).
  bool stages = false;
  int columns() const { return static_cast<int>(accelerator.size()); }
};

// Non-contiguous splits: one column per device, devices of a kind interchangeable.
Layout deviceLayout(const DeviceSet& devices) {
  Layout l;
  for (int d = 0; d < devices.count(); ++d) {
    l.accelerator.push_back(devices.isAccelerator(d));
    l.devices.push_back({d});
  }
  return l;
}

// Contiguous splits: D = k + l pipeline stages in order; each is an accelerator or a CPU.
Layout stageLayout(const DeviceSet& devices) {
  Layout l;
  l.stages = true;
  for (int s = 0; s < devices.count(); ++s) {
    l.accelerator.push_back(true);
    l.accelerator.push_back(false);
    l.devices.push_back({2 * s, 2 * s + 1});
  }
  return l;
}

// device_of from a stage layout's columns: accelerators and CPUs numbered in pipeline order.
std::vector<int> stageColumnsToDevices(const DeviceSet& devices, const std::vector<int>& column_of) {
  const int stages = devices.count();
  std::vector<int> device_of_column(2 * stages, -1);
  // Only stages that hold nodes use up a device; an empty stage's type is arbitrary.
  std::vector<bool> used(2 * stages, false);
  for (int c : column_of)
    used[c] = true;
  int next_acc = 0, next_cpu = devices.accelerators;
  for (int c = 0; c < 2 * stages; ++c) {
    if (used[c]) device_of_column[c] = c % 2 == 0 ? next_acc++ : next_cpu++;
  }
  std::vector<int> device_of(column_of.size());
  for (std::size_t v = 0; v < column_of.size(); ++v)
    device_of[v] = device_of_column[column_of[v]];
  return device_of;
}

// The start vector for a known split: device columns (relabelled to satisfy the symmetry rows), or
// pipeline stages in order. Empty (no start) when the split does not fit the layout, e.g. a split
// with two stages on one device offered to the contiguous program.
std::vector<double> startFor(const Problem& problem, const Layout& layout, const VarGrid& x,
                             const std::vector<Var>& is_accelerator, const std::vector<Var>& stage_used,
                             const mip::Model& m, const std::vector<Vertex>& order,
                             const MaxLoadIpOptions& options) {
  const DeviceSet& devices = problem.devices;
  const std::vector<int>& start = options.start;
  if (start.size() != boost::num_vertices(problem.graph)) return {};
  for (int d : start) {
    if (d < 0 || d >= devices.count()) return {};
  }
  if (!layout.stages) {
    return startValues(m, x, options.symmetry_breaking ? canonicalLabels(problem, start, order) : start);
  }
  Expected<std::vector<int>> stages = pipelineStages(problem, start);
  if (!stages) return {};
  std::map<int, int> device_of_stage;
  for (std::size_t v = 0; v < start.size(); ++v) {
    auto [it, inserted] = device_of_stage.try_emplace((*stages)[v], start[v]);
    if (!inserted && it->second != start[v]) return {};
  }
  if (static_cast<int>(device_of_stage.size()) > devices.count()) return {};
  std::vector<int> column_of(start.size());
  for (std::size_t v = 0; v < start.size(); ++v) {
    column_of[v] = 2 * (*stages)[v] + (devices.isAccelerator(start[v]) ? 0 : 1);
  }
  std::vector<double> values = startValues(m, x, column_of);
  if (values.empty()) return {};
  int accelerators_left = devices.accelerators;
  for (const auto& [stage, device] : device_of_stage) {
    if (devices.isAccelerator(device)) --accelerators_left;
  }
  for (int s = 0; s < devices.count(); ++s) {
    auto it = device_of_stage.find(s);
    const bool accelerator =
        it != device_of_stage.end() ? devices.isAccelerator(it->second) : accelerators_left-- > 0;
    values[is_accelerator[s].index] = accelerator ? 1.0 : 0.0;
    if (!stage_used.empty()) values[stage_used[s].index] = it != device_of_stage.end() ? 1.0 : 0.0;
  }
  return values;
}

SolveResult solveOnce(const Problem& problem, const MaxLoadIpOptions& options,
                      std::chrono::steady_clock::time_point started) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const int n = static_cast<int>(boost::num_vertices(g));
  SolveResult result;
  auto finish = [&](SolveStatus status, std::string message) {
    result.status = status;
    result.message = std::move(message);
    result.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  };
  if (devices.count() == 0) return finish(SolveStatus::Infeasible, "there are no devices");

  const Layout layout = options.contiguous ? stageLayout(devices) : deviceLayout(devices);
  const int columns = layout.columns();
  mip::Model m;
  const std::vector<double> standalone = standaloneMemory(problem);
  auto allowed = [&](Vertex v, int c) {
    if (layout.accelerator[c]) return g[v].supportedOnAccelerator() && standalone[v] <= devices.memory;
    return std::isfinite(g[v].p_cpu);
  };
  const VarGrid x = addAssignmentVariables(m, problem, allowed, columns);
  for (Vertex v = 0; v < static_cast<Vertex>(n); ++v) {
    if (std::none_of(x[v].begin(), x[v].end(), [](Var var) { return var.index >= 0; })) {
      const std::string why = g[v].supportedOnAccelerator() ? "needs more memory than an accelerator has"
                                                            : "is unsupported on accelerators";
      return finish(SolveStatus::Infeasible,
                    describeNode(g, v) + " " + why +
                        (devices.cpus > 0 ? ", and no CPU runs it" : ", and there are no CPUs"));
    }
  }
  const std::vector<Vertex> order = nodeOrder(g);

  std::vector<Var> is_accelerator;  // stage layout: stage s is an accelerator
  std::vector<Var> stage_used;      // stage layout with symmetry breaking: stage s holds a node
  if (layout.stages) {
    // Stage types: exactly k accelerator stages (and so l CPU stages).
    LinExpr accelerators;
    for (int s = 0; s < devices.count(); ++s) {
      is_accelerator.push_back(m.addBinary("acc_stage_" + std::to_string(s)));
      accelerators += is_accelerator.back();
      for (Vertex v = 0; v < static_cast<Vertex>(n); ++v) {
        if (x[v][2 * s].index >= 0) m.addLe(x[v][2 * s], is_accelerator.back(), "type_acc");
        if (x[v][2 * s + 1].index >= 0)
          m.addLe(x[v][2 * s + 1], 1.0 - LinExpr(is_accelerator.back()), "type_cpu");
      }
    }
    m.addEq(accelerators, devices.accelerators, "accelerator_stages");
    if (options.symmetry_breaking) {
      // Used stages come first, and the unused ones are accelerators first: an empty stage can sit
      // anywhere in the pipeline with either type, which only multiplies equivalent solutions.
      std::vector<Var> used;
      for (int s = 0; s < devices.count(); ++s) {
        used.push_back(m.addBinary("used_stage_" + std::to_string(s)));
        LinExpr members;
        for (Vertex v = 0; v < static_cast<Vertex>(n); ++v) {
          for (int c : {2 * s, 2 * s + 1}) {
            if (x[v][c].index < 0) continue;
            m.addLe(x[v][c], used.back(), "used");
            members += x[v][c];
          }
        }
        m.addLe(used.back(), members, "used_only_if_nonempty");
        if (s > 0) {
          m.addLe(used[s], used[s - 1], "used_first");
          m.addLe(is_accelerator[s], LinExpr(is_accelerator[s - 1]) + used[s - 1] + used[s],
                  "unused_accelerators_first");
        }
      }
      stage_used = used;
    }
    // Forward edges never go to an earlier stage: a node in stages <= s has its predecessors there
    // too. This is the chain of ideals of the DP, so each stage is contiguous and the stages form a
    // pipeline (contiguity alone would allow two contiguous sets that feed each other).
    std::set<std::pair<Vertex, Vertex>> edges;
    for (auto [it, end] = boost::edges(g); it != end; ++it) {
      const Vertex u = boost::source(*it, g), v = boost::target(*it, g);
      if (u != v && !g[u].backward && !g[v].backward) edges.emplace(u, v);
    }
    for (const auto& [u, v] : edges) {
      LinExpr prefix_u, prefix_v;
      for (int s = 0; s + 1 < devices.count(); ++s) {
        prefix_u += term(x, u, 2 * s) + term(x, u, 2 * s + 1);
        prefix_v += term(x, v, 2 * s) + term(x, v, 2 * s + 1);
        m.addLe(prefix_v, prefix_u, "precedence");
      }
    }
    // §5.3: the backward part of each device is contiguous on its own.
    addContiguityRows(m, problem, x, layout.devices, EdgeSide::Backward);
  } else if (options.symmetry_breaking) {
    addSymmetryRows(m, problem, x, order, 0, devices.accelerators);
    addSymmetryRows(m, problem, x, order, devices.accelerators, devices.count());
  }

  // Memory, in units of the accelerator's memory (byte counts next to millisecond costs hurt the LP).
  // A shared weight is held once by a column that holds any of its readers: held[w][c] >= x[r][c].
  // `held` may stay continuous: it only appears with a positive coefficient in <= rows, so at an
  // integer x it can always sit at max_r x[r][c].
  for (int c = 0; c < columns; ++c) {
    if (!layout.accelerator[c]) continue;
    LinExpr used;
    for (Vertex v = 0; v < static_cast<Vertex>(n); ++v) {
      if (x[v][c].index >= 0 && g[v].memory > 0) used.add(x[v][c], g[v].memory / devices.memory);
    }
    for (std::size_t w = 0; w < problem.weights.size(); ++w) {
      const SharedWeight& weight = problem.weights[w];
      if (weight.bytes <= 0) continue;
      Var held;
      for (Vertex r : weight.readers) {
        if (x[r][c].index < 0) continue;
        if (held.index < 0)
          held = m.addContinuous(0, 1, "held_" + std::to_string(w) + "_" + std::to_string(c));
        m.addLe(x[r][c], held, "holds");
      }
      if (held.index >= 0) used.add(held, weight.bytes / devices.memory);
    }
    if (!used.terms().empty()) m.addLe(used, 1.0, "memory_" + std::to_string(c));
  }

  // Loads per part (0: forward; 1: backward, kept apart only for GPipe).
  const int parts = options.gpipe ? 2 : 1;
  auto partOf = [&](Vertex v) { return options.gpipe && g[v].backward ? 1 : 0; };
  std::vector<std::vector<LinExpr>> compute(parts, std::vector<LinExpr>(columns));
  std::vector<std::vector<LinExpr>> comm_in(parts, std::vector<LinExpr>(columns));
  std::vector<std::vector<LinExpr>> comm_out(parts, std::vector<LinExpr>(columns));
  for (Vertex v = 0; v < static_cast<Vertex>(n); ++v) {
    for (int c = 0; c < columns; ++c) {
      if (x[v][c].index < 0) continue;
      const double p = layout.accelerator[c] ? g[v].p_acc : g[v].p_cpu;
      if (p != 0) compute[partOf(v)][c].add(x[v][c], p);
    }
  }
  const NetCommVars comm = addNetCommVars(m, problem, x, 0, columns);
  for (std::size_t i = 0; i < problem.nets.size(); ++i) {
    const Net& net = problem.nets[i];
    for (int c = 0; c < columns; ++c) {
      const double cost = layout.accelerator[c] ? net.cost : net.cpu_cost;  // a CPU's boundary work
      if (cost == 0) continue;
      if (comm.in[i][c].index >= 0) comm_in[partOf(net.source)][c].add(comm.in[i][c], cost);
      if (comm.out[i][c].index >= 0) comm_out[partOf(net.source)][c].add(comm.out[i][c], cost);
    }
  }

  // Objective, with the combinatorial lower bounds on each part's max-load as variable bounds.
  std::vector<double> part_floor(parts, 0.0), part_work(parts, 0.0);
  for (Vertex v = 0; v < static_cast<Vertex>(n); ++v) {
    double cheapest = kInfinity;
    for (int c = 0; c < columns; ++c) {
      if (x[v][c].index >= 0) cheapest = std::min(cheapest, layout.accelerator[c] ? g[v].p_acc : g[v].p_cpu);
    }
    part_floor[partOf(v)] = std::max(part_floor[partOf(v)], cheapest);
    part_work[partOf(v)] += cheapest;
  }
  // The simple bound (solvers/bounds/simple_bound.h: the work relaxation over the device kinds and
  // memory) holds for the max-load and, summed over the passes, for the GPipe objective: with one
  // part it also floors MaxLoad, which every node's LP then starts from.
  double simple = 0;
  const Budget simple_budget(std::max(0.5, options.limits.time_limit / 20), options.limits.budget.stopFlag());
  if (auto bound = throughputSimpleBound(problem, simple_budget, options.backend)) simple = bound->value;
  LinExpr objective;
  double known_bound = 0;
  for (int part = 0; part < parts; ++part) {
    double floor = std::max(part_floor[part], part_work[part] / devices.count());
    if (parts == 1) floor = std::max(floor, simple);
    known_bound += floor;
    Var max_load = m.addContinuous(floor, mip::kUnbounded, part == 0 ? "MaxLoad" : "MaxLoadBW");
    objective += max_load;
    for (int c = 0; c < columns; ++c) {
      if (!layout.accelerator[c]) {
        m.addGe(max_load, comm_in[part][c] + compute[part][c] + comm_out[part][c], "load_cpu");
        continue;
      }
      switch (problem.objective.overlap) {
        case Overlap::None:
          m.addGe(max_load, comm_in[part][c] + compute[part][c] + comm_out[part][c], "load");
          break;
        case Overlap::Max:
          m.addGe(max_load, compute[part][c], "load_compute");
          m.addGe(max_load, comm_in[part][c] + comm_out[part][c], "load_comm");
          break;
        case Overlap::Duplex:
          m.addGe(max_load, comm_in[part][c], "load_in");
          m.addGe(max_load, compute[part][c], "load_compute");
          m.addGe(max_load, comm_out[part][c], "load_out");
          break;
      }
    }
  }
  m.minimize(objective);

  mip::Options mo;
  // The clock started when solveMaxLoadIp was called: the local search and building the program
  // count against the limit.
  mo.time_limit =
      std::max(0.0, options.limits.time_limit -
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  mo.stop = options.limits.budget.stopFlag();
  mo.mip_gap = options.limits.mip_gap;
  mo.backend = options.backend;
  mo.progress = forwardProgress(options.limits.progress, options.mip_progress);
  mo.progress_interval = options.progress_interval;
  mo.known_bound = std::max(known_bound, simple);
  if (!options.start.empty())
    mo.start = startFor(problem, layout, x, is_accelerator, stage_used, m, order, options);
  // GLPK's feasibility pump runs LPs with no callback and no look at the clock: with a start it
  // overran 10 s limits by up to 15 s (op BERT-6 training), and an incumbent is there already.
  mo.feasibility_pump = mo.start.empty();
  mip::Result r = mip::solve(m, mo);
  // The floors are proven whatever GLPK reports (even when it gives up with an error).
  if (r.status != mip::Status::Infeasible && !(r.bound >= mo.known_bound)) r.bound = mo.known_bound;
  const auto evaluate = [&](const std::vector<int>& device_of) {
    return options.gpipe ? gpipeObjective(problem, device_of)
                         : evaluateThroughput(problem, device_of).max_load;
  };
  std::vector<int> device_of;
  if (!r.values.empty()) {
    device_of = decodeColumns(x, r.values);
    if (layout.stages) device_of = stageColumnsToDevices(devices, device_of);
  }
  return ipResult(problem, r, device_of, started, evaluate);
}

}  // namespace

SolveResult solveMaxLoadIp(const Problem& problem, const MaxLoadIpOptions& given) {
  const auto started = std::chrono::steady_clock::now();
  // From here on limits.time_limit is the seconds the call has, the budget's deadline included.
  MaxLoadIpOptions options = given;
  options.limits.time_limit = secondsAllowed(given.limits);
  if (options.contiguous || options.start.empty() ||
      options.start.size() != boost::num_vertices(problem.graph) || options.gpipe) {
    return solveOnce(problem, options, started);
  }
  // Non-contiguous splits: local search from the start first. GLPK's own heuristics find such
  // improvements slowly once the symmetry rows are in (the start is 27.92 on op BERT-3 inference, the
  // local search takes it to 21.91 in milliseconds).
  MaxLoadIpOptions improved = options;
  // At most half of the limit, so the search has time left.
  improved.start = improveByLocalSearch(
      problem, options.start, Budget(options.limits.time_limit / 2, options.limits.budget.stopFlag()));
  return solveOnce(problem, improved, started);
}

}  // namespace placer
