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
#include "solvers/refine/neighbourhoods.h"
#include "solvers/refine/refine.h"
#include "solvers/stages.h"

namespace placer {

using mip::LinExpr;
using mip::Var;

namespace {

constexpr int kCpu = -1;

// The columns a formulation assigns nodes to, and what each one is.
struct Layout {
  std::vector<int> kind;                  // per column: its accelerator kind, or kCpu
  std::vector<std::vector<int>> devices;  // groups of columns that form one device
  // Contiguous layout only: stage s is columns (t+1)s .. (t+1)s+t, one per accelerator kind (t of
  // them) and the CPU's last.
  bool stages = false;
  int kinds = 1;
  int columns() const { return static_cast<int>(kind.size()); }
  bool accelerator(int column) const { return kind[column] != kCpu; }
  int stageColumn(int stage, int column_kind) const {
    return (kinds + 1) * stage + (column_kind == kCpu ? kinds : column_kind);
  }
};

// Non-contiguous splits: one column per device, devices of a kind interchangeable.
Layout deviceLayout(const DeviceSet& devices) {
  Layout l;
  l.kinds = devices.kindCount();
  for (int d = 0; d < devices.count(); ++d) {
    l.kind.push_back(devices.isAccelerator(d) ? devices.kindOf(d) : kCpu);
    l.devices.push_back({d});
  }
  return l;
}

// Contiguous splits: D = k + l pipeline stages in order; each is an accelerator (of a kind) or a CPU.
Layout stageLayout(const DeviceSet& devices) {
  Layout l;
  l.stages = true;
  l.kinds = devices.kindCount();
  for (int s = 0; s < devices.count(); ++s) {
    l.devices.emplace_back();
    for (int k = 0; k <= l.kinds; ++k) {
      l.devices.back().push_back(l.columns());
      l.kind.push_back(k < l.kinds ? k : kCpu);
    }
  }
  return l;
}

// device_of from a stage layout's columns: accelerators (of each kind) and CPUs numbered in
// pipeline order.
std::vector<int> stageColumnsToDevices(const DeviceSet& devices, const Layout& layout,
                                       const std::vector<int>& column_of) {
  std::vector<int> device_of_column(layout.columns(), -1);
  // Only stages that hold nodes use up a device; an empty stage's type is arbitrary.
  std::vector<bool> used(layout.columns(), false);
  for (int c : column_of)
    used[c] = true;
  std::vector<int> next_acc(devices.kindCount());
  for (int k = 0; k < devices.kindCount(); ++k)
    next_acc[k] = devices.firstOfKind(k);
  int next_cpu = devices.accelerators;
  for (int c = 0; c < layout.columns(); ++c) {
    if (used[c]) device_of_column[c] = layout.accelerator(c) ? next_acc[layout.kind[c]]++ : next_cpu++;
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
                             const std::vector<std::vector<Var>>& stage_kind,
                             const std::vector<Var>& stage_used, const mip::Model& m,
                             const std::vector<Vertex>& order, const MaxLoadIpOptions& options) {
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
  auto kindOf = [&](int device) { return devices.isAccelerator(device) ? devices.kindOf(device) : kCpu; };
  std::vector<int> column_of(start.size());
  for (std::size_t v = 0; v < start.size(); ++v)
    column_of[v] = layout.stageColumn((*stages)[v], kindOf(start[v]));
  std::vector<double> values = startValues(m, x, column_of);
  if (values.empty()) return {};
  // The unused stages take the accelerators left, kind by kind, before the CPUs.
  std::vector<int> left(devices.kindCount());
  for (int k = 0; k < devices.kindCount(); ++k)
    left[k] = devices.kindSize(k);
  for (const auto& [stage, device] : device_of_stage) {
    if (devices.isAccelerator(device)) --left[devices.kindOf(device)];
  }
  for (int s = 0; s < devices.count(); ++s) {
    auto it = device_of_stage.find(s);
    int kind = kCpu;
    if (it != device_of_stage.end()) {
      kind = kindOf(it->second);
    } else {
      for (int k = 0; k < devices.kindCount() && kind == kCpu; ++k) {
        if (left[k] > 0) kind = k, --left[k];
      }
    }
    for (int k = 0; k < devices.kindCount(); ++k)
      values[stage_kind[s][k].index] = kind == k ? 1.0 : 0.0;
    if (!stage_used.empty()) values[stage_used[s].index] = it != device_of_stage.end() ? 1.0 : 0.0;
  }
  return values;
}

// The stage layout's types: stage s is an accelerator of kind k when stage_kind[s][k] is 1, a CPU
// when none is; kind k has exactly its count of stages, and a column holds nodes only where its
// stage has its type. With symmetry breaking: used stages come first, and the unused ones are
// accelerators first (an empty stage can sit anywhere in the pipeline with any type, which only
// multiplies equivalent solutions).
void addStageTypes(mip::Model& m, const Problem& problem, const Layout& layout, const VarGrid& x,
                   bool symmetry_breaking, std::vector<std::vector<Var>>& stage_kind,
                   std::vector<Var>& stage_used) {
  const DeviceSet& devices = problem.devices;
  const int n = static_cast<int>(boost::num_vertices(problem.graph));
  const int kinds = layout.kinds, stages = devices.count();
  std::vector<LinExpr> per_kind(kinds);
  std::vector<LinExpr> is_accelerator(stages);
  for (int s = 0; s < stages; ++s) {
    stage_kind.emplace_back();
    for (int k = 0; k < kinds; ++k) {
      const std::string name = kinds == 1 ? "acc_stage_" + std::to_string(s)
                                          : "kind" + std::to_string(k) + "_stage_" + std::to_string(s);
      const Var type = m.addBinary(name);
      stage_kind[s].push_back(type);
      per_kind[k] += type;
      is_accelerator[s] += type;
    }
    if (kinds > 1) m.addLe(is_accelerator[s], 1.0, "one_type");
    for (Vertex v = 0; v < static_cast<Vertex>(n); ++v) {
      for (int k = 0; k < kinds; ++k) {
        if (const Var column = x[v][layout.stageColumn(s, k)]; column.index >= 0)
          m.addLe(column, stage_kind[s][k], "type_acc");
      }
      if (const Var column = x[v][layout.stageColumn(s, kCpu)]; column.index >= 0)
        m.addLe(column, 1.0 - is_accelerator[s], "type_cpu");
    }
  }
  for (int k = 0; k < kinds; ++k)
    m.addEq(per_kind[k], devices.kindSize(k), kinds == 1 ? "accelerator_stages" : "kind_stages");
  if (!symmetry_breaking) return;
  for (int s = 0; s < stages; ++s) {
    stage_used.push_back(m.addBinary("used_stage_" + std::to_string(s)));
    LinExpr members;
    for (Vertex v = 0; v < static_cast<Vertex>(n); ++v) {
      for (int c : layout.devices[s]) {
        if (x[v][c].index < 0) continue;
        m.addLe(x[v][c], stage_used.back(), "used");
        members += x[v][c];
      }
    }
    m.addLe(stage_used.back(), members, "used_only_if_nonempty");
    if (s > 0) {
      m.addLe(stage_used[s], stage_used[s - 1], "used_first");
      m.addLe(is_accelerator[s], is_accelerator[s - 1] + stage_used[s - 1] + stage_used[s],
              "unused_accelerators_first");
    }
  }
}

// The rows that make the columns a pipeline: with the stage layout, a node's stage is never before its
// predecessors' (forward) and each stage's backward part is contiguous (§5.3), and the stages' kinds
// (stage_kind[s][k]: stage s is an accelerator of kind k, none of them a CPU; stage_used[s] with
// symmetry breaking); with the device layout, the symmetry rows between identical devices.
void addPipelineRows(mip::Model& m, const Problem& problem, const Layout& layout, const VarGrid& x,
                     const std::vector<Vertex>& order, bool symmetry_breaking,
                     std::vector<std::vector<Var>>& stage_kind, std::vector<Var>& stage_used) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  if (layout.stages) {
    addStageTypes(m, problem, layout, x, symmetry_breaking, stage_kind, stage_used);
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
        for (int c : layout.devices[s]) {
          prefix_u += term(x, u, c);
          prefix_v += term(x, v, c);
        }
        m.addLe(prefix_v, prefix_u, "precedence");
      }
    }
    // §5.3: the backward part of each device is contiguous on its own.
    addContiguityRows(m, problem, x, layout.devices, EdgeSide::Backward);
  } else if (symmetry_breaking) {
    for (int k = 0; k < devices.kindCount(); ++k) {
      const int first = devices.firstOfKind(k);
      addSymmetryRows(m, problem, x, order, first, first + devices.kindSize(k));
    }
    addSymmetryRows(m, problem, x, order, devices.accelerators, devices.count());
  }
}

// One knapsack row per accelerator column: memory, in units of the accelerator's memory (byte counts
// next to millisecond costs hurt the LP). A shared weight is held once by a column that holds any of
// its readers: held[w][c] >= x[r][c]. `held` may stay continuous: it only appears with a positive
// coefficient in <= rows, so at an integer x it can always sit at max_r x[r][c].
void addMemoryRows(mip::Model& m, const Problem& problem, const Layout& layout, const VarGrid& x) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const int n = static_cast<int>(boost::num_vertices(g));
  const int columns = layout.columns();
  for (int c = 0; c < columns; ++c) {
    if (!layout.accelerator(c)) continue;
    const double capacity = devices.kindMemory(layout.kind[c]);
    LinExpr used;
    for (Vertex v = 0; v < static_cast<Vertex>(n); ++v) {
      if (x[v][c].index >= 0 && g[v].memory > 0) used.add(x[v][c], g[v].memory / capacity);
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
      if (held.index >= 0) used.add(held, weight.bytes / capacity);
    }
    if (!used.terms().empty()) m.addLe(used, 1.0, "memory_" + std::to_string(c));
  }
}

// Each column's compute and transfers as expressions of the variables, per part: [part][column].
struct PartLoads {
  std::vector<std::vector<LinExpr>> compute, comm_in, comm_out;
};

// The loads per part (0: forward; 1: backward, kept apart only for GPipe).
PartLoads addLoadTerms(mip::Model& m, const Problem& problem, const Layout& layout, const VarGrid& x,
                       bool gpipe) {
  const OpGraph& g = problem.graph;
  const int n = static_cast<int>(boost::num_vertices(g));
  const int columns = layout.columns();
  const int parts = gpipe ? 2 : 1;
  auto partOf = [&](Vertex v) { return gpipe && g[v].backward ? 1 : 0; };
  PartLoads loads;
  auto& [compute, comm_in, comm_out] = loads;
  for (auto* grid : {&compute, &comm_in, &comm_out})
    grid->assign(parts, std::vector<LinExpr>(columns));
  for (Vertex v = 0; v < static_cast<Vertex>(n); ++v) {
    for (int c = 0; c < columns; ++c) {
      if (x[v][c].index < 0) continue;
      const double p = layout.accelerator(c) ? g[v].accTime(layout.kind[c]) : g[v].p_cpu;
      if (p != 0) compute[partOf(v)][c].add(x[v][c], p);
    }
  }
  const NetCommVars comm = addNetCommVars(m, problem, x, 0, columns);
  for (std::size_t i = 0; i < problem.nets.size(); ++i) {
    const Net& net = problem.nets[i];
    for (int c = 0; c < columns; ++c) {
      const double cost = layout.accelerator(c) ? net.cost : net.cpu_cost;  // a CPU's boundary work
      if (cost == 0) continue;
      if (comm.in[i][c].index >= 0) comm_in[partOf(net.source)][c].add(comm.in[i][c], cost);
      if (comm.out[i][c].index >= 0) comm_out[partOf(net.source)][c].add(comm.out[i][c], cost);
    }
  }
  return loads;
}

// Each part's max-load (the max-load, or GPipe's FW and BW): a variable at least every device's
// load of that part, combined per the overlap mode, floored by the combinatorial bounds; their sum
// is minimised. Returns the bound the floors prove before the program runs.
double addMaxLoadObjective(mip::Model& m, const Problem& problem, const Layout& layout, const VarGrid& x,
                           const PartLoads& loads, const MaxLoadIpOptions& options) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const int columns = layout.columns();
  const int parts = options.gpipe ? 2 : 1;
  auto partOf = [&](Vertex v) { return options.gpipe && g[v].backward ? 1 : 0; };
  const auto& [compute, comm_in, comm_out] = loads;
  std::vector<double> part_floor(parts, 0.0), part_work(parts, 0.0);
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    double cheapest = kInfinity;
    for (int c = 0; c < columns; ++c) {
      if (x[v][c].index >= 0)
        cheapest = std::min(cheapest, layout.accelerator(c) ? g[v].accTime(layout.kind[c]) : g[v].p_cpu);
    }
    part_floor[partOf(v)] = std::max(part_floor[partOf(v)], cheapest);
    part_work[partOf(v)] += cheapest;
  }
  // The simple bound (solvers/bounds/simple_bound.h: the work relaxation over the device kinds and
  // memory) holds for the max-load and, summed over the passes, for the GPipe objective: with one
  // part it also floors MaxLoad, which every node's LP then starts from. On a mixed machine it is the
  // bound of the one-kind machine it relaxes to (core/problem.h).
  double simple = 0;
  const Budget simple_budget(std::max(0.5, options.limits.time_limit / 20), options.limits.budget.stopFlag());
  if (auto bound = throughputSimpleBound(devices.mixed() ? relaxKinds(problem) : problem, simple_budget,
                                         options.backend))
    simple = bound->value;
  LinExpr objective;
  double known_bound = 0;
  for (int part = 0; part < parts; ++part) {
    double floor = std::max(part_floor[part], part_work[part] / devices.count());
    if (parts == 1) floor = std::max(floor, simple);
    known_bound += floor;
    Var max_load = m.addContinuous(floor, mip::kUnbounded, part == 0 ? "MaxLoad" : "MaxLoadBW");
    objective += max_load;
    for (int c = 0; c < columns; ++c) {
      if (!layout.accelerator(c)) {
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
  return std::max(known_bound, simple);
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
    if (layout.accelerator(c))
      return g[v].supportedOnAccelerator() && standalone[v] <= devices.kindMemory(layout.kind[c]);
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

  std::vector<std::vector<Var>> stage_kind;
  std::vector<Var> stage_used;  // stage layout with symmetry breaking: stage s holds a node
  addPipelineRows(m, problem, layout, x, order, options.symmetry_breaking, stage_kind, stage_used);
  addMemoryRows(m, problem, layout, x);
  const PartLoads loads = addLoadTerms(m, problem, layout, x, options.gpipe);
  const double known_bound = addMaxLoadObjective(m, problem, layout, x, loads, options);

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
  mo.known_bound = known_bound;
  if (!options.start.empty())
    mo.start = startFor(problem, layout, x, stage_kind, stage_used, m, order, options);
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
    if (layout.stages) device_of = stageColumnsToDevices(devices, layout, device_of);
  }
  return ipResult(problem, r, device_of, started, evaluate);
}

// The start made better before the program gets it, when there is one: refined (solvers/refine/
// refine.h) within at most half of the limit (GLPK's own heuristics find such improvements slowly
// once the symmetry rows are in: the DP's split is 27.92 on op BERT-3 inference, refined
// non-contiguously it is 21.91 within milliseconds); then, for a non-contiguous max-load split,
// regions of it placed exactly by small programs (solvers/refine/neighbourhoods.h) until 60% of a
// finite limit, which the whole program does not do within a minute on the larger operator graphs (op
// BERT-6 inference: 29.38 refined, 28.33 after the regions). Returns what the regions did, for the
// result's message ("" when they did nothing).
std::string improveStart(const Problem& problem, MaxLoadIpOptions& options,
                         std::chrono::steady_clock::time_point started) {
  if (options.start.empty() || options.start.size() != boost::num_vertices(problem.graph)) return "";
  const double limit = options.limits.time_limit;
  const std::atomic<bool>* stop = options.limits.budget.stopFlag();
  RefineOptions refine;
  refine.contiguous = options.contiguous;
  refine.budget = Budget(limit / 2, stop);
  // A contiguous max-load start is the DP's optimum unless the DP ran out of time: the passes
  // alone, not the iterated search, which could only spend the program's time.
  if (options.contiguous && !options.gpipe) refine.kicks = 0;
  options.start = refineSplit(problem, options.start, refine).device_of;
  // Without a time limit the program runs to its proven optimum on its own: the regions are for a
  // program that would stop at the limit with what it found.
  if (options.contiguous || options.gpipe || !std::isfinite(limit)) return "";
  NeighbourhoodOptions regions;
  regions.backend = options.backend;
  regions.progress = options.limits.progress;
  regions.budget = Budget(std::max(0.0, 0.6 * limit - secondsSince(started)), stop);
  NeighbourhoodStats stats;
  options.start = improveByNeighbourhoods(problem, options.start, regions, &stats);
  if (!(stats.after < stats.before)) return "";
  std::ostringstream note;
  note << "the start " << stats.before << " improved to " << stats.after
       << " by placing regions of it exactly (" << stats.kept << " of " << stats.programs << " programs)";
  return note.str();
}

}  // namespace

SolveResult solveMaxLoadIp(const Problem& problem, const MaxLoadIpOptions& given) {
  const auto started = std::chrono::steady_clock::now();
  // From here on limits.time_limit is the seconds the call has, the budget's deadline included.
  MaxLoadIpOptions options = given;
  options.limits.time_limit = secondsAllowed(given.limits);
  const double limit = options.limits.time_limit;
  const std::atomic<bool>* stop = options.limits.budget.stopFlag();
  const std::string start_note = improveStart(problem, options, started);
  // The program stops a little before the limit, so that its incumbent is refined within it.
  const double polish = std::isfinite(limit) ? std::min(0.05 * limit, 5.0) : kInfinity;
  MaxLoadIpOptions program = options;
  if (std::isfinite(limit)) program.limits.time_limit = std::max(0.0, limit - polish);
  SolveResult result = solveOnce(problem, program, started);
  if (result.status == SolveStatus::Feasible || result.status == SolveStatus::TimeLimit) {
    RefineOptions refine;
    refine.contiguous = options.contiguous;
    refine.budget =
        Budget(std::isfinite(limit) ? std::max(0.0, limit - secondsSince(started)) : kInfinity, stop);
    const RefineStats refined = refineResult(problem, result, refine);
    if (refined.after < refined.before) {
      std::ostringstream note;
      note << "the program's incumbent " << refined.before << " refined to " << refined.after;
      result.message = result.message.empty() ? note.str() : result.message + "; " + note.str();
    }
  }
  if (!start_note.empty())
    result.message = result.message.empty() ? start_note : start_note + "; " + result.message;
  result.stats.seconds = secondsSince(started);
  return result;
}

}  // namespace placer
