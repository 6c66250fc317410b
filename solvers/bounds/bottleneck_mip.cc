#include "solvers/bounds/bottleneck_mip.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

#include "core/evaluate.h"
#include "solvers/mip.h"

namespace placer {

namespace {

constexpr double kSafety = 1e-9;  // as the simple bound: round-off never lifts a bound above an optimum

struct VariantBound {
  double value = kInfinity;  // +inf: no block of this kind can carry that much work
  bool cut_short = false;
  std::string outcome;
};

// The smallest load of a block B on one device of the given kind with work(B) >= threshold; times
// in units of `threshold`.
VariantBound solveVariant(const Problem& problem, bool accelerator, bool contiguous, double threshold,
                          const Budget& budget) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const std::vector<double> standalone = standaloneMemory(problem);
  mip::Model m;
  auto time = [&](Vertex v) { return (accelerator ? g[v].p_acc : g[v].p_cpu) / threshold; };
  // b_v: v in B (fixed at 0 where v cannot be on this kind of device).
  std::vector<mip::LinExpr> b(n);
  std::vector<std::optional<mip::Var>> b_var(n);
  mip::LinExpr compute;
  for (Vertex v = 0; v < n; ++v) {
    const bool fits = std::isfinite(time(v)) && (!accelerator || standalone[v] <= problem.devices.memory);
    if (!fits) continue;
    b_var[v] = m.addBinary("b_" + std::to_string(v));
    b[v] = *b_var[v];
    compute.add(*b_var[v], time(v));
  }
  // Colocated nodes are in B together or not at all (and, below, share the rest's fractions): each
  // node with the first of its class.
  std::map<int, Vertex> first_of_class;
  std::vector<std::pair<Vertex, Vertex>> colocated;
  for (Vertex v = 0; v < n; ++v) {
    if (!g[v].colocation) continue;
    auto [it, inserted] = first_of_class.try_emplace(*g[v].colocation, v);
    if (inserted) continue;
    colocated.emplace_back(v, it->second);
    m.addEq(b[v], b[it->second], "colocated");
  }
  if (contiguous) {
    // pre_v: v in a block before B; after = 1 - pre - b. Every forward data edge u -> v keeps its
    // order: v before B only if u is, u after B only if v is.
    std::vector<mip::Var> pre(n);
    for (Vertex v = 0; v < n; ++v) {
      pre[v] = m.addBinary("pre_" + std::to_string(v));
      m.addLe(mip::LinExpr(pre[v]) + b[v], 1.0, "one_place");
    }
    for (auto [e, end] = boost::edges(g); e != end; ++e) {
      const Vertex u = boost::source(*e, g), v = boost::target(*e, g);
      if (g[*e].artificial || g[u].backward || g[v].backward) continue;
      m.addLe(pre[v], pre[u], "order_before");
      m.addLe(mip::LinExpr(pre[v]) + b[v], mip::LinExpr(pre[u]) + b[u], "order_after");
    }
  }
  // Tensors crossing B's boundary, each once however many of its consumers are across.
  mip::LinExpr in, out;
  for (std::size_t i = 0; i < problem.nets.size(); ++i) {
    const Net& net = problem.nets[i];
    const double cost = (accelerator ? net.cost : net.cpu_cost) / threshold;
    if (!(cost > 0)) continue;
    const mip::Var in_n = m.addContinuous(0, 1, "in_" + std::to_string(i));
    const mip::Var out_n = m.addContinuous(0, 1, "out_" + std::to_string(i));
    for (Vertex t : net.sinks) {
      m.addGe(out_n, b[net.source] - b[t], "sent");
      m.addGe(in_n, b[t] - b[net.source], "received");
    }
    in.add(in_n, cost);
    out.add(out_n, cost);
  }
  m.addGe(compute, 1.0, "bottleneck_work");
  // The rest of the graph on the other devices, fractionally: a_v on accelerators, c_v on CPUs, each
  // kind's work at most its device count times L, and the accelerators' memory.
  const int rest_acc = problem.devices.accelerators - (accelerator ? 1 : 0);
  const int rest_cpu = problem.devices.cpus - (accelerator ? 0 : 1);
  std::vector<mip::LinExpr> a(n), c(n);
  mip::LinExpr acc_work, cpu_work, rest_held;
  for (Vertex v = 0; v < n; ++v) {
    if (rest_acc > 0 && std::isfinite(g[v].p_acc) && standalone[v] <= problem.devices.memory) {
      const mip::Var x = m.addContinuous(0, 1, "a_" + std::to_string(v));
      a[v] = x;
      acc_work.add(x, g[v].p_acc / threshold);
      if (g[v].memory > 0) rest_held.add(x, g[v].memory / problem.devices.memory);
    }
    if (rest_cpu > 0 && std::isfinite(g[v].p_cpu)) {
      const mip::Var x = m.addContinuous(0, 1, "c_" + std::to_string(v));
      c[v] = x;
      cpu_work.add(x, g[v].p_cpu / threshold);
    }
    m.addEq(b[v] + a[v] + c[v], 1.0, "placed");
  }
  for (const auto& [v, first] : colocated) {
    m.addEq(a[v], a[first], "colocated_rest");
    m.addEq(c[v], c[first], "colocated_rest");
  }
  if (rest_acc > 0) {
    for (std::size_t w = 0; w < problem.weights.size(); ++w) {
      const mip::Var y = m.addContinuous(0, 1, "y_" + std::to_string(w));
      rest_held.add(y, problem.weights[w].bytes / problem.devices.memory);
      for (Vertex r : problem.weights[w].readers)
        m.addGe(y, a[r], "rest_holds");
    }
    m.addLe(rest_held, static_cast<double>(rest_acc), "rest_memory");
  }
  if (accelerator) {
    const double capacity = problem.devices.memory;
    mip::LinExpr held;
    for (Vertex v = 0; v < n; ++v) {
      if (b_var[v] && g[v].memory > 0) held.add(*b_var[v], g[v].memory / capacity);
    }
    for (std::size_t w = 0; w < problem.weights.size(); ++w) {
      const mip::Var z = m.addContinuous(0, 1, "z_" + std::to_string(w));
      held.add(z, problem.weights[w].bytes / capacity);
      for (Vertex r : problem.weights[w].readers)
        m.addGe(z, b[r], "holds");
    }
    m.addLe(held, 1.0, "memory");
  }
  const mip::Var load = m.addContinuous(1.0, mip::kUnbounded, "L");
  if (rest_acc > 0) m.addLe(acc_work, static_cast<double>(rest_acc) * load, "rest_accelerators");
  if (rest_cpu > 0) m.addLe(cpu_work, static_cast<double>(rest_cpu) * load, "rest_cpus");
  const Overlap overlap = accelerator ? problem.objective.overlap : Overlap::None;
  switch (overlap) {
    case Overlap::None:
      m.addGe(load, in + compute + out, "load");
      break;
    case Overlap::Max:
      m.addGe(load, compute, "load_compute");
      m.addGe(load, in + out, "load_comm");
      break;
    case Overlap::Duplex:
      m.addGe(load, in, "load_in");
      m.addGe(load, compute, "load_compute");
      m.addGe(load, out, "load_out");
      break;
  }
  m.minimize(load);
  mip::Options options;
  options.time_limit = budget.remaining();
  options.stop = budget.stopFlag();
  options.known_bound = 1.0;  // L >= compute >= the threshold
  // Only the bound matters: no feasibility pump (its LPs do not look at the clock).
  options.feasibility_pump = false;
  options.cuts = false;
  const mip::Result r = mip::solve(m, options);
  VariantBound out_bound;
  switch (r.status) {
    case mip::Status::Infeasible:
      out_bound.outcome = "no such block";
      return out_bound;
    case mip::Status::Optimal:
      out_bound.value = r.objective * threshold * (1 - kSafety);
      out_bound.outcome = "optimal";
      return out_bound;
    case mip::Status::Feasible:
    case mip::Status::NoSolution:
      out_bound.value = std::max(1.0, r.bound) * threshold * (1 - kSafety);
      out_bound.cut_short = true;
      out_bound.outcome = "cut short";
      return out_bound;
    case mip::Status::Error:
      break;
  }
  out_bound.value = threshold * (1 - kSafety);  // what the work row alone proves
  out_bound.cut_short = true;
  out_bound.outcome = "failed: " + r.message;
  return out_bound;
}

}  // namespace

Expected<BottleneckBound> bottleneckBound(const Problem& problem, bool contiguous, double threshold,
                                          const Budget& budget) {
  if (problem.objective.goal != Goal::Throughput || problem.objective.gpipe)
    return invalidInput("the bottleneck program bounds the max-load objective only");
  if (!(threshold > 0)) return BottleneckBound{};
  BottleneckBound out;
  out.value = kInfinity;
  for (const bool accelerator : {true, false}) {
    const int count = accelerator ? problem.devices.accelerators : problem.devices.cpus;
    if (count == 0) continue;
    // Half of what is left to the first program, the rest to the second.
    const bool last = !accelerator || problem.devices.cpus == 0;
    const Budget share = last ? budget : budget.within(budget.remaining() / 2);
    const VariantBound v = solveVariant(problem, accelerator, contiguous, threshold, share);
    out.value = std::min(out.value, v.value);
    out.cut_short = out.cut_short || v.cut_short;
    char text[96];
    std::snprintf(text, sizeof text, "%s%s %.6g (%s)", out.detail.empty() ? "" : ", ",
                  accelerator ? "accelerator" : "cpu", v.value, v.outcome.c_str());
    out.detail += text;
  }
  if (!std::isfinite(out.value)) return infeasible("no device can run a block of the work some device must run");
  return out;
}

}  // namespace placer
