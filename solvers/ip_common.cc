#include "solvers/ip_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <queue>
#include <set>

#include "core/evaluate.h"
#include "solvers/stages.h"

namespace placer {

using mip::LinExpr;
using mip::Var;

double secondsAllowed(const Limits& limits) {
  return std::min(limits.time_limit, limits.budget.remaining());
}

std::function<void(const mip::Progress&)> forwardProgress(
    const ProgressFn& progress, const std::function<void(const mip::Progress&)>& detailed, double unit) {
  if (!progress && !detailed) return nullptr;
  return [progress, detailed, unit](const mip::Progress& reported) {
    mip::Progress p = reported;
    p.incumbent *= unit;
    p.bound *= unit;
    if (detailed) detailed(p);
    if (!progress) return;
    char detail[160];
    std::snprintf(detail, sizeof detail, "nodes, incumbent %.6g, bound %.6g, gap %.2f%%", p.incumbent,
                  p.bound, std::isfinite(p.gap) ? 100 * p.gap : 100.0);
    progress(ProgressEvent{"ip", p.nodes, 0, detail});
  };
}

VarGrid addAssignmentVariables(mip::Model& m, const Problem& problem,
                               const std::function<bool(Vertex, int)>& allowed, int columns,
                               bool share_colocated) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  if (columns < 0) columns = problem.devices.count();
  // Members of a colocation class share one set of variables: they are in the same column in every
  // layout (a column belongs to one device), so equality rows would only double the binaries.
  std::map<int, std::vector<Vertex>> classes;
  std::vector<std::vector<Vertex>> owners;
  for (Vertex v = 0; v < n; ++v) {
    if (share_colocated && g[v].colocation) {
      classes[*g[v].colocation].push_back(v);
    } else {
      owners.push_back({v});
    }
  }
  for (auto& [cls, members] : classes)
    owners.push_back(std::move(members));
  std::sort(owners.begin(), owners.end());
  VarGrid x(n, std::vector<Var>(columns));
  for (const std::vector<Vertex>& members : owners) {
    LinExpr one;
    for (int c = 0; c < columns; ++c) {
      if (!std::all_of(members.begin(), members.end(), [&](Vertex v) { return allowed(v, c); })) continue;
      const Var var = m.addBinary("x_" + std::to_string(members.front()) + "_" + std::to_string(c));
      for (Vertex v : members)
        x[v][c] = var;
      one += var;
    }
    if (!one.terms().empty()) m.addEq(one, 1, "assign_" + std::to_string(members.front()));
  }
  return x;
}

LinExpr term(const VarGrid& x, Vertex v, int c) {
  return x[v][c].index >= 0 ? LinExpr(x[v][c]) : LinExpr(0.0);
}

std::vector<Vertex> nodeOrder(const OpGraph& g) {
  const std::size_t n = boost::num_vertices(g);
  std::vector<int> indegree(n, 0);
  for (auto [it, end] = boost::edges(g); it != end; ++it)
    ++indegree[boost::target(*it, g)];
  std::priority_queue<Vertex, std::vector<Vertex>, std::greater<>> ready;
  for (Vertex v = 0; v < n; ++v) {
    if (indegree[v] == 0) ready.push(v);
  }
  std::vector<Vertex> order;
  while (!ready.empty()) {
    Vertex v = ready.top();
    ready.pop();
    order.push_back(v);
    for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
      if (--indegree[boost::target(*it, g)] == 0) ready.push(boost::target(*it, g));
    }
  }
  if (order.size() != n) {
    order.resize(n);
    for (Vertex v = 0; v < n; ++v)
      order[v] = v;
  }
  return order;
}

void addSymmetryRows(mip::Model& m, const Problem& problem, const VarGrid& x,
                     const std::vector<Vertex>& order, int first, int last) {
  (void)problem;
  if (last - first < 2) return;
  // prefix[c]: sum of x[order[i]][c] over the nodes placed so far.
  std::vector<LinExpr> prefix(last - first);
  for (Vertex v : order) {
    for (int c = first + 1; c < last; ++c) {
      if (x[v][c].index < 0) continue;
      // x[v][c] <= number of earlier nodes in column c - 1.
      m.addLe(x[v][c], prefix[c - 1 - first], "sym_" + std::to_string(v) + "_" + std::to_string(c));
    }
    for (int c = first; c < last; ++c)
      prefix[c - first] += term(x, v, c);
  }
}

void addContiguityRows(mip::Model& m, const Problem& problem, const VarGrid& x,
                       const std::vector<std::vector<int>>& groups, EdgeSide side) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  std::set<std::pair<Vertex, Vertex>> edges;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const Vertex u = boost::source(*it, g), v = boost::target(*it, g);
    if (u == v || g[u].backward != g[v].backward) continue;
    if (side == EdgeSide::Forward && g[u].backward) continue;
    if (side == EdgeSide::Backward && !g[u].backward) continue;
    edges.emplace(u, v);
  }
  if (edges.empty()) return;
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    auto in_group = [&](Vertex v) {
      LinExpr e;
      for (int c : groups[gi])
        e += term(x, v, c);
      return e;
    };
    std::vector<Var> z(n);
    for (Vertex v = 0; v < n; ++v) {
      // Every node needs z (paths pass through nodes that can never be on this device).
      z[v] = m.addContinuous(0, 1, "z_" + std::to_string(v) + "_" + std::to_string(gi));
      LinExpr here = in_group(v);
      if (!here.terms().empty()) m.addGe(z[v], here, "z_ge_x");
    }
    for (const auto& [u, v] : edges) {
      m.addLe(z[v], z[u], "z_mono");
      m.addLe(z[v], in_group(v) - in_group(u) + 1.0, "z_cut");
    }
  }
}

NetCommVars addNetCommVars(mip::Model& m, const Problem& problem, const VarGrid& x, int first, int last) {
  NetCommVars out;
  const int columns = static_cast<int>(x.empty() ? 0 : x[0].size());
  out.in.assign(problem.nets.size(), std::vector<Var>(columns));
  out.out.assign(problem.nets.size(), std::vector<Var>(columns));
  for (std::size_t i = 0; i < problem.nets.size(); ++i) {
    const Net& net = problem.nets[i];
    if (net.cost == 0 && net.cpu_cost == 0) continue;
    for (int c = first; c < last; ++c) {
      const bool source_here = x[net.source][c].index >= 0;
      const bool sink_here =
          std::any_of(net.sinks.begin(), net.sinks.end(), [&](Vertex s) { return x[s][c].index >= 0; });
      const std::string suffix = std::to_string(i) + "_" + std::to_string(c);
      if (sink_here) {
        out.in[i][c] = m.addContinuous(0, 1, "in_" + suffix);
        for (Vertex s : net.sinks) {
          if (x[s][c].index >= 0) m.addGe(out.in[i][c], term(x, s, c) - term(x, net.source, c), "comm_in");
        }
      }
      if (source_here) {
        out.out[i][c] = m.addContinuous(0, 1, "out_" + suffix);
        for (Vertex s : net.sinks)
          m.addGe(out.out[i][c], term(x, net.source, c) - term(x, s, c), "comm_out");
      }
    }
  }
  return out;
}

std::vector<int> canonicalLabels(const Problem& problem, const std::vector<int>& device_of,
                                 const std::vector<Vertex>& order) {
  const DeviceSet& devices = problem.devices;
  std::vector<int> relabel(devices.count(), -1);
  std::vector<int> next_acc(devices.kindCount());  // per kind
  for (int k = 0; k < devices.kindCount(); ++k)
    next_acc[k] = devices.firstOfKind(k);
  int next_cpu = devices.accelerators;
  for (Vertex v : order) {
    const int d = device_of[v];
    if (relabel[d] >= 0) continue;
    relabel[d] = devices.isAccelerator(d) ? next_acc[devices.kindOf(d)]++ : next_cpu++;
  }
  std::vector<int> out(device_of.size());
  for (std::size_t v = 0; v < device_of.size(); ++v)
    out[v] = relabel[device_of[v]];
  return out;
}

std::vector<double> startValues(const mip::Model& m, const VarGrid& x, const std::vector<int>& column_of) {
  std::vector<double> values(m.numVars(), 0.0);
  for (std::size_t v = 0; v < x.size(); ++v) {
    const int c = column_of[v];
    if (c < 0 || c >= static_cast<int>(x[v].size()) || x[v][c].index < 0) return {};  // not representable
    values[x[v][c].index] = 1.0;
  }
  return values;
}

std::vector<int> decodeColumns(const VarGrid& x, const std::vector<double>& values) {
  std::vector<int> column_of(x.size(), -1);
  for (std::size_t v = 0; v < x.size(); ++v) {
    for (std::size_t c = 0; c < x[v].size(); ++c) {
      if (x[v][c].index >= 0 && values[x[v][c].index] > 0.5) column_of[v] = static_cast<int>(c);
    }
  }
  return column_of;
}

void applyMipOutcome(SolveResult& result, const mip::Result& r, double value) {
  result.stats.mip_nodes = r.nodes;
  switch (r.status) {
    case mip::Status::Optimal:
      result.status = SolveStatus::Optimal;
      break;
    case mip::Status::Feasible:
      result.status = SolveStatus::Feasible;
      break;
    case mip::Status::NoSolution:
      result.status = SolveStatus::TimeLimit;
      break;
    case mip::Status::Infeasible:
      result.status = SolveStatus::Infeasible;
      break;
    case mip::Status::Unknown:  // the call failed
      result.status = SolveStatus::Error;
      break;
  }
  result.value = value;
  result.bound = std::isfinite(r.bound) ? std::min(std::max(r.bound, 0.0), value) : 0.0;
  // Proven optimal at gap 0: the bound is the value (GLPK's objective and the evaluator's recomputed
  // value may differ in the last bits).
  if (r.status == mip::Status::Optimal && r.gap == 0) result.bound = value;
  result.gap = mip::relativeGap(value, result.bound);
  if (!std::isfinite(result.gap)) result.gap = 0;
  result.message = r.message;
  if (r.interrupted) result.status = SolveStatus::Interrupted;
}

SolveResult ipResult(const Problem& problem, const mip::Result& r, const std::vector<int>& device_of,
                     std::chrono::steady_clock::time_point started,
                     const std::function<double(const std::vector<int>&)>& evaluate) {
  SolveResult result;
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  if (device_of.empty()) {
    applyMipOutcome(result, r, kInfinity);
    result.bound = std::isfinite(r.bound) ? std::max(r.bound, 0.0) : 0.0;
    result.gap = 0;
    if (result.status == SolveStatus::Infeasible)
      result.message = "no split satisfies the constraints (" + r.message + ")";
    if (result.status == SolveStatus::TimeLimit) result.message = "no split found within the time limit";
    result.stats.seconds = seconds();
    return result;
  }
  const double value = evaluate(device_of);
  applyMipOutcome(result, r, value);
  result.placement.device_of = device_of;
  result.placement.value = value;
  result.placement.stage_of = stagesOrDevices(problem, device_of);
  result.stats.seconds = seconds();
  return result;
}

}  // namespace placer
