#include "solvers/latency_ip.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <utility>

#include "core/latency.h"
#include "solvers/bounds/simple_bound.h"
#include "solvers/ip_common.h"
#include "solvers/latency_greedy.h"
#include "solvers/latency_model.h"
#include "solvers/latency_places.h"
#include "solvers/latency_starts.h"

namespace placer {

using mip::LinExpr;
using mip::Var;

namespace {

std::string slotName(int slot, int q) {
  return "slot " + std::to_string(slot) + " (accelerator " + std::to_string((slot - 1) / q) + ")";
}

// Whether the nodes of `slot` are contiguous: no node outside it is both reachable from it and able
// to reach it.
bool contiguous(const OpGraph& g, const std::vector<Vertex>& order, const std::vector<int>& slot_of,
                int slot) {
  const std::size_t n = boost::num_vertices(g);
  std::vector<char> below(n, 0), above(n, 0);  // reachable from the slot / reaches the slot
  for (Vertex v : order) {
    for (auto [it, end] = boost::in_edges(v, g); it != end; ++it) {
      const Vertex u = boost::source(*it, g);
      if (slot_of[u] == slot || below[u]) below[v] = 1;
    }
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    for (auto [e, end] = boost::out_edges(*it, g); e != end; ++e) {
      const Vertex w = boost::target(*e, g);
      if (slot_of[w] == slot || above[w]) above[*it] = 1;
    }
  }
  for (Vertex v = 0; v < n; ++v) {
    if (slot_of[v] != slot && below[v] && above[v]) return false;
  }
  return true;
}

// Longest path ending at each node with every node at its cheapest allowed time: a lower bound on
// when its output can be in CPU memory, whatever the placement (a contiguous slot that holds the
// end of a path runs that whole stretch of the path before it finishes).
std::vector<double> heads(const OpGraph& g, const std::vector<Vertex>& order,
                          const std::vector<double>& cheapest) {
  std::vector<double> head(boost::num_vertices(g), 0);
  for (Vertex v : order) {
    double before = 0;
    for (auto [it, end] = boost::in_edges(v, g); it != end; ++it)
      before = std::max(before, head[boost::source(*it, g)]);
    head[v] = before + cheapest[v];
  }
  return head;
}

// Device of each node from its slot: slot j on accelerator (j-1)/q, the CPU column on device k.
std::vector<int> devicesOfSlots(const DeviceSet& devices, const std::vector<int>& slot_of, int q) {
  std::vector<int> device_of(slot_of.size());
  for (std::size_t v = 0; v < slot_of.size(); ++v) {
    device_of[v] = slot_of[v] == 0 ? devices.accelerators : (slot_of[v] - 1) / q;
  }
  return device_of;
}

// The units a slot schedule runs over: the columns 0..columns-1 (slot j is unit j; column 0, the
// CPU, is unused), then one unit per CPU node, in vertex order.
struct SlotUnits {
  std::vector<int> unit_of;      // per vertex
  std::vector<Vertex> cpu_node;  // per unit >= columns
  int count = 0;
};

SlotUnits slotUnits(const std::vector<int>& slot_of, int columns) {
  SlotUnits u;
  u.unit_of.resize(slot_of.size());
  for (std::size_t v = 0; v < slot_of.size(); ++v) {
    if (slot_of[v] > 0) {
      u.unit_of[v] = slot_of[v];
    } else {
      u.unit_of[v] = columns + static_cast<int>(u.cpu_node.size());
      u.cpu_node.push_back(static_cast<Vertex>(v));
    }
  }
  u.count = columns + static_cast<int>(u.cpu_node.size());
  return u;
}

// Stages in order of the schedule: every non-empty slot is one stage; CPU nodes that start between
// two subgraphs form one stage. Units (slots, CPU nodes) are taken in a topological order of their
// dependencies that follows start times.
std::vector<int> scheduleStages(const Problem& problem, const std::vector<int>& slot_of, int q,
                                const SlotSchedule& s) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const int slots = static_cast<int>(s.start.size());
  // Units 0..slots-1 are the columns (column 0 unused), then one per CPU node.
  const SlotUnits slot_units = slotUnits(slot_of, slots);
  const std::vector<int>& unit_of = slot_units.unit_of;
  const std::vector<Vertex>& cpu_node = slot_units.cpu_node;
  const int units = slot_units.count;
  std::vector<std::vector<int>> succ(units);
  std::vector<int> waiting(units, 0);
  std::vector<char> used(units, 0);
  for (Vertex v = 0; v < n; ++v)
    used[unit_of[v]] = 1;
  auto link = [&](int a, int b) {
    succ[a].push_back(b);
    ++waiting[b];
  };
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const int a = unit_of[boost::source(*it, g)], b = unit_of[boost::target(*it, g)];
    if (a != b) link(a, b);
  }
  // Fig. 4 (14): the used slots of an accelerator run in index order.
  for (int first = 1; first < slots; first += q) {
    int last = -1;
    for (int j = first; j < first + q; ++j) {
      if (!used[j]) continue;
      if (last >= 0) link(last, j);
      last = j;
    }
  }
  auto start_of = [&](int u) {
    return u < slots ? s.start[u] : s.node_finish[cpu_node[u - slots]] - g[cpu_node[u - slots]].p_cpu;
  };
  using Key = std::tuple<double, int>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
  for (int u = 0; u < units; ++u) {
    if (used[u] && waiting[u] == 0) ready.emplace(start_of(u), u);
  }
  std::vector<int> stage_of_unit(units, -1);
  int stage = -1;
  bool previous_cpu = false;
  while (!ready.empty()) {
    const int u = std::get<1>(ready.top());
    ready.pop();
    const bool cpu = u >= slots;
    if (!cpu || !previous_cpu) ++stage;
    previous_cpu = cpu;
    stage_of_unit[u] = stage;
    for (int w : succ[u]) {
      if (--waiting[w] == 0) ready.emplace(start_of(w), w);
    }
  }
  std::vector<int> stage_of(n);
  for (Vertex v = 0; v < n; ++v)
    stage_of[v] = stage_of_unit[unit_of[v]];
  return stage_of;
}

// Why `slot_of` is no slot assignment of a latency program with q slots per accelerator (a slot out
// of range, a slot not contiguous, a cyclic graph); ok when it is one. `used` says which columns
// hold a node.
Status checkSlots(const Problem& problem, const std::vector<int>& slot_of, int q, std::vector<char>& used) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const int k = problem.devices.accelerators;
  if (q < 1) return invalidInput("the number of subgraphs per accelerator must be at least 1");
  const int columns = 1 + k * q;
  if (slot_of.size() != n) {
    return invalidInput("the slot assignment covers " + std::to_string(slot_of.size()) +
                        " nodes, the graph has " + std::to_string(n));
  }
  for (Vertex v = 0; v < n; ++v) {
    if (slot_of[v] < 0 || slot_of[v] >= columns) {
      return invalidInput(describeNode(g, v) + " is in slot " + std::to_string(slot_of[v]) +
                          ", which does not exist");
    }
  }
  if (!findCycle(g, false).empty())
    return invalidInput("the graph has a cycle: it has no single-sample latency");
  const std::vector<Vertex> order = nodeOrder(g);
  used.assign(columns, 0);
  for (Vertex v = 0; v < n; ++v)
    used[slot_of[v]] = 1;
  for (int j = 1; j < columns; ++j) {
    if (used[j] && !contiguous(g, order, slot_of, j))
      return invalidInput(slotName(j, q) + " is not contiguous");
  }
  return Status::ok();
}

// Each unit's duration: its nodes' times (a slot's at its accelerator's kind), and for a slot the
// transfers in and out of it, each net once per slot.
std::vector<double> unitDurations(const Problem& problem, const std::vector<int>& slot_of, int q,
                                  const SlotUnits& slot_units) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const int columns = 1 + problem.devices.accelerators * q;
  const std::vector<int>& unit_of = slot_units.unit_of;
  const int units = slot_units.count;
  std::vector<double> duration(units, 0);
  for (Vertex v = 0; v < n; ++v)
    duration[unit_of[v]] +=
        slot_of[v] > 0 ? g[v].accTime(problem.devices.kindOf((slot_of[v] - 1) / q)) : g[v].p_cpu;
  std::vector<int> receivers;
  for (const Net& net : problem.nets) {
    const int from = unit_of[net.source];
    receivers.clear();
    for (Vertex s : net.sinks) {
      if (unit_of[s] != from) receivers.push_back(unit_of[s]);
    }
    if (receivers.empty()) continue;
    std::sort(receivers.begin(), receivers.end());
    receivers.erase(std::unique(receivers.begin(), receivers.end()), receivers.end());
    if (from < columns) duration[from] += net.cost;
    for (int to : receivers) {
      if (to < columns) duration[to] += net.cost;
    }
  }
  return duration;
}

}  // namespace

Expected<SlotSchedule> evaluateSlotSchedule(const Problem& problem, const std::vector<int>& slot_of, int q) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const int k = problem.devices.accelerators;
  std::vector<char> used;
  if (Status status = checkSlots(problem, slot_of, q, used); !status) return status;
  const int columns = 1 + k * q;

  // Units: the columns 1..k·q, then one per CPU node.
  const SlotUnits slot_units = slotUnits(slot_of, columns);
  const std::vector<int>& unit_of = slot_units.unit_of;
  const std::vector<Vertex>& cpu_node = slot_units.cpu_node;
  const int units = slot_units.count;
  const std::vector<double> duration = unitDurations(problem, slot_of, q, slot_units);
  std::vector<std::vector<int>> succ(units);
  std::vector<int> waiting(units, 0);
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const int a = unit_of[boost::source(*it, g)], b = unit_of[boost::target(*it, g)];
    if (a == b) continue;
    succ[a].push_back(b);
    ++waiting[b];
  }
  // Fig. 4 (14): an accelerator runs its used slots in index order.
  std::vector<int> previous_slot(units, -1);
  for (int d = 0; d < k; ++d) {
    int last = -1;
    for (int j = d * q + 1; j <= (d + 1) * q; ++j) {
      if (!used[j]) continue;
      if (last >= 0) {
        succ[last].push_back(j);
        ++waiting[j];
        previous_slot[j] = last;
      }
      last = j;
    }
  }
  std::vector<double> ready(units, 0), finish(units, 0);
  std::vector<int> queue;
  for (int u = 1; u < units; ++u) {
    if ((u >= columns || used[u]) && waiting[u] == 0) queue.push_back(u);
  }
  SlotSchedule s;
  s.start.assign(columns, 0);
  s.finish.assign(columns, 0);
  std::size_t done = 0;
  while (done < queue.size()) {
    const int u = queue[done++];
    finish[u] = ready[u] + duration[u];
    if (u < columns) {
      s.start[u] = ready[u];
      s.finish[u] = finish[u];
    }
    for (int w : succ[u]) {
      ready[w] = std::max(ready[w], finish[u]);
      if (--waiting[w] == 0) queue.push_back(w);
    }
  }
  const std::size_t expected =
      cpu_node.size() + static_cast<std::size_t>(std::count(used.begin() + 1, used.end(), char{1}));
  if (done != expected) {
    std::string stuck;
    for (int j = 1; j < columns; ++j) {
      if (used[j] && waiting[j] > 0) stuck += (stuck.empty() ? "" : ", ") + slotName(j, q);
    }
    return infeasible("the slots wait for one another (" + stuck +
                      "): a subgraph starts only when all of its inputs are in CPU memory");
  }
  s.node_finish.assign(n, 0);
  for (Vertex v = 0; v < n; ++v) {
    s.node_finish[v] = finish[unit_of[v]];
    s.latency = std::max(s.latency, s.node_finish[v]);
  }
  return s;
}

namespace {

// H, the big-M: no schedule of the optimum is longer than the best start; without one, than all work
// and every transfer one after another.
double bigM(const Problem& problem, const std::optional<LatencyStart>& start, const std::vector<double>& slowest) {
  if (start) return start->latency * (1 + 1e-9) + 1e-9;
  double big_m = 0;
  for (double time : slowest)
    big_m += time;
  for (const Net& net : problem.nets)
    big_m += net.cost * static_cast<double>(1 + net.sinks.size());
  return big_m * (1 + 1e-9) + 1;
}

// The result from the program's outcome `r` (objective and bound in times, not units of H): its
// incumbent, or the start when the search found nothing better (GLPK may also decline a start it
// cannot complete), so the result is never worse than its start; the placement's level split when
// that is at least as good. Sets all of `out` but the seconds.
void decodeSolution(const Problem& problem, const mip::Result& r, const std::optional<LatencyStart>& start,
                    const LatencyModel& model, int q, double unit, double time_limit, LatencyIpSolution& out) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const std::size_t n = boost::num_vertices(g);
  SolveResult& result = out.result;
  auto fail = [&result](std::string message) {
    result.status = SolveStatus::Error;
    result.message = std::move(message);
  };
  std::vector<int> slot_of;
  if (!r.values.empty()) {
    slot_of = decodeColumns(model.x, r.values);
    for (Vertex v = 0; v < n; ++v) {
      if (slot_of[v] < 0)
        return fail("the solution leaves " + describeNode(g, v) + " unplaced");
    }
  }
  Expected<SlotSchedule> schedule = slot_of.empty() ? Expected<SlotSchedule>(internalError("no incumbent"))
                                                    : evaluateSlotSchedule(problem, slot_of, q);
  const bool from_start = start && (!schedule || schedule->latency > start->latency * (1 + 1e-12));
  if (from_start) {
    slot_of = start->slot_of;
    schedule = evaluateSlotSchedule(problem, slot_of, q);
  }
  if (slot_of.empty()) {
    applyMipOutcome(result, r, kInfinity);
    result.bound = std::isfinite(r.bound) ? std::max(r.bound, 0.0) : 0.0;
    result.gap = 0;
    if (result.status == SolveStatus::Infeasible) {
      result.message =
          "no split satisfies the memory, colocation and contiguity constraints (" + r.message + ")";
    } else if (result.status == SolveStatus::TimeLimit) {
      result.message = "no split found within the time limit of " + tenDigits(time_limit) +
                       " s, and no start to fall back on (" + r.message + ")";
    }
    return;
  }

  const std::vector<int> device_of = devicesOfSlots(devices, slot_of, q);
  Expected<LatencyEvaluation> level = evaluateLatency(problem, device_of);
  out.level_latency = level ? level->latency : kInfinity;
  std::string note;
  if (level && (!schedule || level->latency <= schedule->latency)) {
    // The level split is at least as good: hold it, so the result is what the evaluator computes.
    std::optional<LatencyStart> s = latencyStartFrom(problem, device_of, q);
    if (s) {
      slot_of = s->slot_of;
      schedule = evaluateSlotSchedule(problem, slot_of, q);
    }
  }
  if (!schedule) {
    return fail("the integer program's slots have no schedule: " + schedule.status().message());
  }
  const double value = schedule->latency;
  applyMipOutcome(result, r, value);
  if (from_start && result.status != SolveStatus::Feasible) {
    result.status = SolveStatus::Feasible;
    result.message = "the search found nothing better than the start (" + std::string(toString(r.status)) +
                     (r.message.empty() ? "" : ": " + r.message) + ")";
  } else if (result.status == SolveStatus::Error) {
    // GLPK gave up (numerical trouble deep in the tree) after finding or accepting a split, which is
    // valid: it is returned without a proof.
    result.status = SolveStatus::Feasible;
    result.message = "the search stopped early (" + r.message + "); the best split found is returned";
  }
  // Stopped on request: whatever was found is not to be used.
  if (r.interrupted) {
    result.status = SolveStatus::Interrupted;
    result.message = "interrupted";
  }
  // The program's TotalLatency for these slots (the start's is its schedule: the LP completes it).
  const double ip_total = from_start ? value : r.values[model.total.index] * unit;
  out.ip_latency = ip_total;
  if (std::abs(ip_total - value) > 1e-6 * std::max(1.0, value)) {
    note =
        "the program's TotalLatency is " + tenDigits(ip_total) + ", its slots' schedule takes " + tenDigits(value);
  }
  if (level && level->latency > value * (1 + 1e-12)) {
    note += std::string(note.empty() ? "" : "; ") + "the evaluator's level split of this placement takes " +
            tenDigits(level->latency) + ", the program's own " + std::to_string(q) +
            " subgraph(s) per accelerator take " + tenDigits(value);
  }
  if (!note.empty()) result.message += (result.message.empty() ? "" : "; ") + note;
  out.slot_of = slot_of;
  result.placement.device_of = device_of;
  result.placement.value = value;
  result.placement.stage_of = scheduleStages(problem, slot_of, q, *schedule);
}

}  // namespace

LatencyIpSolution solveLatencyIpDetailed(const Problem& problem, const LatencyIpOptions& given) {
  const auto started = std::chrono::steady_clock::now();
  // From here on limits.time_limit is the seconds the call has, the budget's deadline included.
  LatencyIpOptions options = given;
  options.limits.time_limit = secondsAllowed(given.limits);
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const std::size_t n = boost::num_vertices(g);
  const int k = devices.accelerators;
  const int q = options.subgraphs_per_accelerator;
  LatencyIpSolution out;
  SolveResult& result = out.result;
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  auto finish = [&](SolveStatus status, std::string message) {
    result.status = status;
    result.message = std::move(message);
    result.stats.seconds = seconds();
    return out;
  };
  if (q < 1) return finish(SolveStatus::Error, "the number of subgraphs per accelerator must be at least 1");
  if (!findCycle(g, false).empty())
    return finish(SolveStatus::Error, "the graph has a cycle: it has no latency");
  if (n == 0) {
    result.status = SolveStatus::Optimal;
    result.value = result.placement.value = 0;
    out.level_latency = 0;
    return finish(SolveStatus::Optimal, "");
  }
  const int columns = 1 + k * q;

  const Places places = placesOf(problem, q);
  if (!places.nowhere.empty()) return finish(SolveStatus::Infeasible, places.nowhere);
  const std::vector<Vertex> order = nodeOrder(g);

  // The start: options.start alone, or the best of the baselines and the heuristics' splits.
  std::optional<LatencyStart> start = chooseLatencyStart(problem, options, order, seconds);
  out.heuristic_seconds = seconds();

  const NodeTimes times = nodeTimes(problem, q, places);
  if (times.nowhere)
    return finish(SolveStatus::Infeasible, describeNode(g, *times.nowhere) + " can be placed nowhere");
  const double big_m = bigM(problem, start, times.slowest);
  out.big_m = big_m;
  // Times in units of H: the big-M coefficients become 1 and every time lies in [0, 1], so the rows
  // mixing big-M with transfer costs of a thousandth of the latency stay well scaled.
  const double unit = big_m;
  auto t = [unit](double time) { return time / unit; };
  out.start_latency = start ? start->latency : kInfinity;
  const std::vector<double> head = heads(g, order, times.cheapest);
  // Floors of the latency: the longest path of cheapest times, and the simple bound (the fractional
  // critical path with the accelerators' share of the work, within their memory;
  // solvers/bounds/simple_bound.h). Both hold for every placement, so for every program's space;
  // the floor on TotalLatency is where every node's LP starts.
  double floor = *std::max_element(head.begin(), head.end());
  const double simple_seconds = std::max(0.5, (options.limits.time_limit - seconds()) / 20);
  const Budget simple_budget(simple_seconds, options.limits.budget.stopFlag());
  // (On a machine of several kinds, on the one-kind machine it relaxes to: core/problem.h.)
  if (auto simple =
          latencySimpleBound(devices.mixed() ? relaxKinds(problem) : problem, simple_budget, options.backend))
    floor = std::max(floor, simple->value);

  LatencyModelInput input{q,     columns, places.allowed, places.on_accelerator, places.classes,
                          order, head,    floor,   unit,           options.symmetry_breaking};
  LatencyModel model = buildLatencyModel(problem, input);
  const mip::Model& m = model.m;
  const std::vector<Var>& slot_used = model.slot_used;

  mip::Options mo;
  mo.time_limit = std::max(0.0, options.limits.time_limit - seconds());  // the heuristics' time counts
  mo.stop = options.limits.budget.stopFlag();
  mo.mip_gap = options.limits.mip_gap;
  mo.backend = options.backend;
  mo.progress = forwardProgress(options.limits.progress, options.mip_progress, unit);
  mo.progress_interval = options.progress_interval;
  mo.known_bound = t(floor);
  if (start) {
    mo.start = startValues(m, model.x, start->slot_of);
    if (!mo.start.empty() && options.symmetry_breaking && q > 1) {
      for (int j = 1; j < columns; ++j) {
        mo.start[slot_used[j].index] =
            std::count(start->slot_of.begin(), start->slot_of.end(), j) > 0 ? 1.0 : 0.0;
      }
    }
  }
  // The pump looks for a first incumbent; with a start it only holds up the search (on the larger
  // workloads it ran for tens of seconds past the time limit).
  mo.feasibility_pump = options.feasibility_pump && mo.start.empty();
  mo.cuts = options.cuts;
  mip::Result r = mip::solve(m, mo);
  // The floor is proven whatever GLPK reports (even when it gives up with an error).
  if (r.status != mip::Status::Infeasible && !(r.bound >= mo.known_bound)) r.bound = mo.known_bound;
  r.objective *= unit;
  r.bound *= unit;

  decodeSolution(problem, r, start, model, q, unit, options.limits.time_limit, out);
  result.stats.seconds = seconds();
  return out;
}

}  // namespace placer
