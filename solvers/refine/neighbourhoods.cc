#include "solvers/refine/neighbourhoods.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include "core/evaluate.h"
#include "solvers/refine/moves.h"
#include "solvers/refine/split_loads.h"

namespace placer {

using mip::LinExpr;
using mip::Var;

namespace {

// The region a program places: the chosen devices, and per unit whether it is free.
struct Region {
  std::vector<int> devices;
  std::vector<char> free;  // per unit
  int free_count = 0;
};

// The split's units and who touches whom, built once.
struct Units {
  std::vector<std::vector<Vertex>> members;
  std::vector<int> of;                       // per vertex
  std::vector<std::vector<int>> neighbours;  // per unit: units joined by an edge, either way

  // The device of `unit` in the split `device_of` (a unit's members share one).
  int deviceOf(int unit, const std::vector<int>& device_of) const { return device_of[members[unit].front()]; }
};

Units buildUnits(const Problem& problem) {
  const OpGraph& g = problem.graph;
  Units u;
  u.members = moveUnits(problem);
  u.of.assign(boost::num_vertices(g), -1);
  for (std::size_t i = 0; i < u.members.size(); ++i) {
    for (Vertex v : u.members[i])
      u.of[v] = static_cast<int>(i);
  }
  u.neighbours.resize(u.members.size());
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const int a = u.of[boost::source(*it, g)], b = u.of[boost::target(*it, g)];
    if (a == b) continue;
    u.neighbours[a].push_back(b);
    u.neighbours[b].push_back(a);
  }
  for (auto& list : u.neighbours) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return u;
}

// Frees units breadth first from the queues' units, one neighbour per queue in turn, among the
// units `eligible` accepts, until the region holds `free_units`; when every queue has run dry (a
// component of the graph is all free), from a random eligible unit not yet free.
void growRegion(Region& region, const Units& units, std::vector<std::deque<int>> queues, int free_units,
                const std::function<bool(int)>& eligible, std::mt19937_64& rng) {
  auto take = [&](int unit, std::deque<int>& queue) {
    region.free[unit] = 1;
    ++region.free_count;
    queue.push_back(unit);
  };
  while (region.free_count < free_units) {
    bool grew = false;
    for (std::deque<int>& queue : queues) {
      while (!queue.empty() && region.free_count < free_units) {
        const std::vector<int>& next = units.neighbours[queue.front()];
        const auto it =
            std::find_if(next.begin(), next.end(), [&](int b) { return !region.free[b] && eligible(b); });
        if (it == next.end()) {
          queue.pop_front();
          continue;
        }
        take(*it, queue);
        grew = true;
        break;
      }
    }
    if (grew) continue;
    std::vector<int> left;
    for (std::size_t a = 0; a < units.members.size(); ++a) {
      if (!region.free[a] && eligible(static_cast<int>(a))) left.push_back(static_cast<int>(a));
    }
    if (left.empty()) return;
    queues.emplace_back();
    take(left[std::uniform_int_distribution<std::size_t>(0, left.size() - 1)(rng)], queues.back());
  }
}

// A random region around the busiest device (see neighbourhoods.h).
Region pickRegion(const Problem& problem, const Units& units, const std::vector<int>& device_of,
                  const SplitLoads& loads, int free_units, std::mt19937_64& rng) {
  const DeviceSet& devices = problem.devices;
  const int count = devices.count();
  std::vector<int> critical;
  const std::vector<char> at_max = loads.critical(false);
  for (int d = 0; d < count; ++d) {
    if (at_max[d]) critical.push_back(d);
  }
  const int busiest = critical[std::uniform_int_distribution<std::size_t>(0, critical.size() - 1)(rng)];
  // The units of the busiest device at the edge of its block, and how often each other device
  // touches it.
  std::vector<int> edge_units;
  std::vector<double> touches(count, 0.0);
  for (std::size_t a = 0; a < units.members.size(); ++a) {
    if (units.deviceOf(static_cast<int>(a), device_of) != busiest) continue;
    bool at_edge = false;
    for (int b : units.neighbours[a]) {
      const int d = units.deviceOf(b, device_of);
      if (d != busiest) at_edge = true, touches[d] += 1;
    }
    if (at_edge) edge_units.push_back(static_cast<int>(a));
  }
  Region region;
  region.devices.push_back(busiest);
  const int partners = 1 + static_cast<int>(rng() % 2);
  for (int p = 0; p < partners && static_cast<int>(region.devices.size()) < count; ++p) {
    std::vector<double> weight(count, 0.0);
    const bool by_touch =
        rng() % 4 != 0 && std::any_of(touches.begin(), touches.end(), [](double t) { return t > 0; });
    for (int d = 0; d < count; ++d) {
      if (std::find(region.devices.begin(), region.devices.end(), d) != region.devices.end()) continue;
      weight[d] = by_touch ? touches[d] : 1.0;
    }
    if (std::none_of(weight.begin(), weight.end(), [](double w) { return w > 0; })) break;
    region.devices.push_back(std::discrete_distribution<int>(weight.begin(), weight.end())(rng));
  }
  if (devices.cpus > 0 && rng() % 3 == 0) {
    const int cpu = devices.accelerators + static_cast<int>(rng() % static_cast<std::uint64_t>(devices.cpus));
    if (std::find(region.devices.begin(), region.devices.end(), cpu) == region.devices.end())
      region.devices.push_back(cpu);
  }
  auto chosen = [&](int unit) {
    return std::find(region.devices.begin(), region.devices.end(), units.deviceOf(unit, device_of)) !=
           region.devices.end();
  };
  // Breadth first from a unit at the edge (any unit of the busiest device when none is), over units
  // on the chosen devices.
  region.free.assign(units.members.size(), 0);
  std::vector<int> seeds = edge_units;
  if (seeds.empty()) {
    for (std::size_t a = 0; a < units.members.size(); ++a) {
      if (units.deviceOf(static_cast<int>(a), device_of) == busiest) seeds.push_back(static_cast<int>(a));
    }
  }
  if (seeds.empty()) return region;
  const int seed = seeds[std::uniform_int_distribution<std::size_t>(0, seeds.size() - 1)(rng)];
  region.free[seed] = 1;
  region.free_count = 1;
  growRegion(region, units, {std::deque<int>{seed}}, free_units, chosen, rng);
  return region;
}

// A region over every device: breadth first, round robin, from one unit at the edge of each
// device's block, over units anywhere. It lets the program rebalance devices that are all near the
// maximum, which no region of two or three devices can lower together.
Region spreadRegion(const Problem& problem, const Units& units, const std::vector<int>& device_of,
                    int free_units, std::mt19937_64& rng) {
  const int count = problem.devices.count();
  std::vector<std::vector<int>> edge_units(count);
  for (std::size_t a = 0; a < units.members.size(); ++a) {
    const int d = units.deviceOf(static_cast<int>(a), device_of);
    for (int b : units.neighbours[a]) {
      if (units.deviceOf(b, device_of) == d) continue;
      edge_units[d].push_back(static_cast<int>(a));
      break;
    }
  }
  Region region;
  for (int d = 0; d < count; ++d)
    region.devices.push_back(d);
  region.free.assign(units.members.size(), 0);
  std::vector<std::deque<int>> queues;
  for (int d = 0; d < count; ++d) {
    if (edge_units[d].empty()) continue;
    const int seed =
        edge_units[d][std::uniform_int_distribution<std::size_t>(0, edge_units[d].size() - 1)(rng)];
    if (region.free[seed]) continue;
    region.free[seed] = 1;
    ++region.free_count;
    queues.push_back({seed});
  }
  growRegion(
      region, units, std::move(queues), free_units, [](int) { return true; }, rng);
  return region;
}

// A region over every device of the heaviest units (by their fastest time), each taken with
// probability 3/4 in order of weight: where a few large operators decide the balance, as in a bin
// packing, the program packs them together.
Region heavyRegion(const Problem& problem, const Units& units, int free_units, std::mt19937_64& rng) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  std::vector<std::pair<double, int>> weight;
  for (std::size_t a = 0; a < units.members.size(); ++a) {
    double fastest = kInfinity;
    for (int d = 0; d < devices.count(); ++d) {
      double t = 0;
      for (Vertex v : units.members[a])
        t += deviceTime(g[v], devices, d);
      fastest = std::min(fastest, t);
    }
    weight.emplace_back(-fastest, static_cast<int>(a));
  }
  std::sort(weight.begin(), weight.end());
  Region region;
  for (int d = 0; d < devices.count(); ++d)
    region.devices.push_back(d);
  region.free.assign(units.members.size(), 0);
  for (const auto& [minus_time, a] : weight) {
    if (region.free_count >= free_units) break;
    if (rng() % 4 == 0) continue;
    region.free[a] = 1;
    ++region.free_count;
  }
  return region;
}

// The program over a region (neighbourhoods.h) and its variables: x[unit][j] for a free unit on the
// region's device j.
struct RegionProgram {
  mip::Model model;
  std::vector<std::vector<Var>> x;  // per unit (empty for fixed units)
};

// Vertex v on the region's device j as the program sees it: a variable when its unit is free, else 0
// or 1.
struct OnDevice {
  const Units& units;
  const Region& region;
  const std::vector<int>& device_of;
  const std::vector<std::vector<Var>>& x;
  LinExpr operator()(Vertex v, int j) const {
    const int a = units.of[v];
    if (region.free[a]) return x[a][j].index >= 0 ? LinExpr(x[a][j]) : LinExpr(0.0);
    return LinExpr(device_of[v] == region.devices[j] ? 1.0 : 0.0);
  }
};

bool isConstant(const LinExpr& e) {
  return e.terms().empty();
}

// What each region device pays for the nets, the evaluator's rule (core/evaluate.h): a net is sent
// once by its source's device when some sink is elsewhere, and received once by every other device
// that holds a sink. Where the region's fixed units decide it, a constant; else a variable in [0, 1]
// driven up by the free units.
void addTransfers(mip::Model& m, const Problem& problem, const Region& region, const OnDevice& on,
                  std::vector<LinExpr>& in, std::vector<LinExpr>& out) {
  const DeviceSet& devices = problem.devices;
  const int k = static_cast<int>(region.devices.size());
  // `rows` (each <= the paid share); `certain`: a row is 1 whatever the free units do.
  auto pay = [&](const std::vector<LinExpr>& rows, bool certain, double cost, LinExpr& paid,
                 const char* name) {
    if (certain) {
      paid += cost;
    } else if (!rows.empty()) {
      const Var share = m.addContinuous(0, 1, name);
      for (const LinExpr& row : rows)
        m.addGe(share, row, name);
      paid.add(share, cost);
    }
  };
  for (const Net& net : problem.nets) {
    for (int j = 0; j < k; ++j) {
      const double cost = devices.isAccelerator(region.devices[j]) ? net.cost : net.cpu_cost;
      if (cost == 0) continue;
      const LinExpr source = on(net.source, j);
      const bool source_free = !isConstant(source), source_here = !source_free && source.constant() > 0.5;
      std::vector<LinExpr> sent, received;
      bool surely_sent = false, surely_received = false;
      for (Vertex s : net.sinks) {
        const LinExpr sink = on(s, j);
        const bool sink_free = !isConstant(sink), sink_here = !sink_free && sink.constant() > 0.5;
        if (source_free || source_here) {
          if (!sink_here) sent.push_back(source - sink);
          surely_sent = surely_sent || (source_here && !sink_free && !sink_here);
        }
        if (!source_here) {
          if (sink_free || sink_here) received.push_back(sink - source);
          surely_received = surely_received || (!source_free && sink_here);
        }
      }
      pay(sent, surely_sent, cost, out[j], "comm_out");
      pay(received, surely_received, cost, in[j], "comm_in");
    }
  }
}

// Memory, in units of each accelerator's: its nodes, and every shared weight once.
void addRegionMemoryRows(mip::Model& m, const Problem& problem, const Region& region, const OnDevice& on) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  for (std::size_t j = 0; j < region.devices.size(); ++j) {
    const int d = region.devices[j];
    if (!devices.isAccelerator(d)) continue;
    const double capacity = devices.memoryOf(d);
    const int column = static_cast<int>(j);
    LinExpr used;
    for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
      if (g[v].memory > 0) used += (g[v].memory / capacity) * on(v, column);
    }
    for (const SharedWeight& weight : problem.weights) {
      if (weight.bytes <= 0) continue;
      bool held = false;
      std::vector<LinExpr> free_readers;
      for (Vertex r : weight.readers) {
        LinExpr here = on(r, column);
        if (isConstant(here)) {
          held = held || here.constant() > 0.5;
        } else {
          free_readers.push_back(std::move(here));
        }
      }
      if (held) {
        used += weight.bytes / capacity;
      } else if (!free_readers.empty()) {
        const Var holds = m.addContinuous(0, 1, "held");
        for (const LinExpr& r : free_readers)
          m.addLe(r, holds, "holds");
        used.add(holds, weight.bytes / capacity);
      }
    }
    m.addLe(used, 1.0, "memory");
  }
}

RegionProgram buildProgram(const Problem& problem, const Units& units, const std::vector<int>& device_of,
                           const Region& region) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const int k = static_cast<int>(region.devices.size());
  RegionProgram p;
  mip::Model& m = p.model;
  p.x.resize(units.members.size());
  for (std::size_t a = 0; a < units.members.size(); ++a) {
    if (!region.free[a]) continue;
    p.x[a].assign(k, Var{});
    LinExpr one;
    for (int j = 0; j < k; ++j) {
      if (!unitRunsOn(problem, units.members[a], region.devices[j])) continue;
      p.x[a][j] = m.addBinary("x_" + std::to_string(a) + "_" + std::to_string(j));
      one += p.x[a][j];
    }
    m.addEq(one, 1, "assign");
  }
  const OnDevice on{units, region, device_of, p.x};
  std::vector<LinExpr> compute(k), in(k), out(k);
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    for (int j = 0; j < k; ++j) {
      const double t = deviceTime(g[v], devices, region.devices[j]);
      if (t != 0 && std::isfinite(t)) compute[j] += t * on(v, j);
    }
  }
  addTransfers(m, problem, region, on, in, out);
  addRegionMemoryRows(m, problem, region, on);
  // The largest load among the region's devices, and a tiny share of their sum.
  const Var max_load = m.addContinuous(0, mip::kUnbounded, "MaxLoad");
  LinExpr total;
  for (int j = 0; j < k; ++j) {
    total += compute[j] + in[j] + out[j];
    if (!devices.isAccelerator(region.devices[j])) {
      m.addGe(max_load, compute[j] + in[j] + out[j], "load_cpu");
      continue;
    }
    switch (problem.objective.overlap) {
      case Overlap::None:
        m.addGe(max_load, compute[j] + in[j] + out[j], "load");
        break;
      case Overlap::Max:
        m.addGe(max_load, compute[j], "load_compute");
        m.addGe(max_load, in[j] + out[j], "load_comm");
        break;
      case Overlap::Duplex:
        m.addGe(max_load, in[j], "load_in");
        m.addGe(max_load, compute[j], "load_compute");
        m.addGe(max_load, out[j], "load_out");
        break;
    }
  }
  m.minimize(LinExpr(max_load) + (1e-6 / k) * total);
  return p;
}

}  // namespace

std::vector<int> improveByNeighbourhoods(const Problem& problem, std::vector<int> device_of,
                                         const NeighbourhoodOptions& options, NeighbourhoodStats* stats) {
  const auto started = Budget::Clock::now();
  NeighbourhoodStats local;
  NeighbourhoodStats& s = stats ? *stats : local;
  s = {};
  const int count = problem.devices.count();
  if (problem.objective.gpipe || count < 2 || device_of.size() != boost::num_vertices(problem.graph)) {
    s.before = s.after = count > 0 ? evaluateThroughput(problem, device_of).max_load : 0;
    return device_of;
  }
  const Units units = buildUnits(problem);
  std::mt19937_64 rng(options.seed);
  std::optional<SplitLoads> loads(std::in_place, problem, device_of);
  LoadScore best;
  best.value = loads->objective(false, &best.spread);
  s.before = best.value;
  // Per kind of region (around the busiest device, over every device, the heaviest units): how many
  // units it frees.
  int free_units[3];
  std::fill(std::begin(free_units), std::end(free_units), std::max(2, options.free_units));
  // How often each kind is picked: regions around the busiest device first, and a kind whose
  // program gave a better split becomes likelier.
  double chances[3] = {2, 1, 1};
  auto next_report = started + std::chrono::seconds(1);
  for (int idle = 0; idle < options.patience && !options.budget.exhausted(); ++idle) {
    const int kind = std::discrete_distribution<int>(std::begin(chances), std::end(chances))(rng);
    int& size = free_units[kind];
    const Region region = kind == 0   ? pickRegion(problem, units, device_of, *loads, size, rng)
                          : kind == 1 ? spreadRegion(problem, units, device_of, size, rng)
                                      : heavyRegion(problem, units, size, rng);
    if (region.free_count == 0) break;
    RegionProgram program = buildProgram(problem, units, device_of, region);
    // The programs' limit: program_seconds while they keep finding better splits, twice that after 10
    // rounds in a row keep nothing and four times after 20 (on a machine busy with other work, 1 s
    // programs on op BERT-6 inference kept nothing in 37 rounds).
    const double limit = options.program_seconds * (idle < 10 ? 1 : idle < 20 ? 2 : 4);
    mip::Options mo;
    mo.backend = options.backend;
    mo.time_limit = std::min(limit, options.budget.remaining());
    mo.stop = options.budget.stopFlag();
    // GLPK's feasibility pump solves LPs without looking at the clock (a region of op ResNet-50
    // inference kept it for minutes), and the start is an incumbent already.
    mo.feasibility_pump = false;
    mo.start.assign(program.model.numVars(), 0.0);
    for (std::size_t a = 0; a < units.members.size(); ++a) {
      if (!region.free[a]) continue;
      const auto j = std::find(region.devices.begin(), region.devices.end(),
                               units.deviceOf(static_cast<int>(a), device_of));
      const Var var = program.x[a][j - region.devices.begin()];
      if (var.index >= 0) mo.start[var.index] = 1.0;
    }
    const mip::Result r = mip::solve(program.model, mo);
    ++s.programs;
    if (options.progress && Budget::Clock::now() >= next_report) {
      next_report = Budget::Clock::now() + std::chrono::seconds(1);
      char detail[96];
      std::snprintf(detail, sizeof detail, "programs, max-load %.6g, %d kept", best.value, s.kept);
      options.progress(ProgressEvent{"regions", s.programs, 0, detail});
    }
    // Regions grow while their programs are solved well within the limit, and shrink otherwise.
    if (r.status == mip::Status::Optimal && r.seconds < 0.25 * limit) {
      size = std::min(size + std::max(1, size / 5), static_cast<int>(units.members.size()));
    } else if (r.status != mip::Status::Optimal) {
      size = std::max(std::min(8, size), size * 4 / 5);
    }
    if (!r.ok() || r.values.empty()) continue;
    std::vector<int> candidate = device_of;
    for (std::size_t a = 0; a < units.members.size(); ++a) {
      if (!region.free[a]) continue;
      for (std::size_t j = 0; j < region.devices.size(); ++j) {
        if (program.x[a][j].index < 0 || r.values[program.x[a][j].index] < 0.5) continue;
        for (Vertex v : units.members[a])
          candidate[v] = region.devices[j];
      }
    }
    SplitLoads next(problem, candidate);
    LoadScore score;
    score.value = next.objective(false, &score.spread);
    bool fits = true;
    for (int d : region.devices)
      fits = fits && next.memoryFits(d);
    if (!fits || !score.better(best)) continue;
    device_of = std::move(candidate);
    loads.emplace(std::move(next));  // the state just computed for the kept split
    best = score;
    ++s.kept;
    chances[kind] += 1;
    idle = -1;
  }
  s.after = best.value;
  s.seconds = std::chrono::duration<double>(Budget::Clock::now() - started).count();
  return device_of;
}

}  // namespace placer
