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
  double value = kInfinity;  // +inf: no split of this shape exists
  bool cut_short = false;
  std::string outcome;
};

// Which program: where block B is and how it is constrained.
struct Shape {
  bool accelerator = true;  // B on an accelerator (else a CPU)
  bool contiguous = true;   // B the middle of a before/B/after split
  // Guess the bottleneck: B is block `position` (0-based) of the pipeline's `blocks`, every other
  // block's load is at most L and B's work has no floor; unset: the three-superblock program.
  std::optional<int> position;
  int blocks = 0;
};

VariantBound solveProgram(const Problem& problem, const Shape& shape, double threshold, const Budget& budget) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const bool accelerator = shape.accelerator;
  const bool guess = shape.position.has_value();
  const std::vector<double> standalone = standaloneMemory(problem);
  const double capacity = problem.devices.memory;
  mip::Model m;
  auto time = [&](Vertex v) { return (accelerator ? g[v].p_acc : g[v].p_cpu) / threshold; };
  // b_v: v in B (fixed at 0 where v cannot be on this kind of device).
  std::vector<mip::LinExpr> b(n);
  std::vector<std::optional<mip::Var>> b_var(n);
  mip::LinExpr compute;
  for (Vertex v = 0; v < n; ++v) {
    const bool fits = std::isfinite(time(v)) && (!accelerator || standalone[v] <= capacity);
    if (!fits) continue;
    b_var[v] = m.addBinary("b_" + std::to_string(v));
    b[v] = *b_var[v];
    compute.add(*b_var[v], time(v));
  }
  // Colocated nodes are on one device: in B together or not at all, and below in the same
  // superblock with the same fractions. Each node is tied to the first of its class.
  std::map<int, Vertex> first_of_class;
  std::vector<std::pair<Vertex, Vertex>> colocated;
  for (Vertex v = 0; v < n; ++v) {
    if (!g[v].colocation) continue;
    auto [it, inserted] = first_of_class.try_emplace(*g[v].colocation, v);
    if (inserted) continue;
    colocated.emplace_back(v, it->second);
    m.addEq(b[v], b[it->second], "colocated");
  }
  // pre_v: v in a block before B; after = 1 - pre - b. Every forward data edge u -> v keeps its
  // order: v before B only if u is, u after B only if v is.
  std::vector<mip::LinExpr> pre(n);
  if (shape.contiguous) {
    const bool none_before = guess && *shape.position == 0;
    for (Vertex v = 0; v < n; ++v) {
      if (none_before) continue;
      pre[v] = m.addBinary("pre_" + std::to_string(v));
      m.addLe(pre[v] + b[v], 1.0, "one_place");
      if (guess && *shape.position == shape.blocks - 1) m.addEq(pre[v] + b[v], 1.0, "none_after");
    }
    if (!none_before) {
      for (const auto& [v, first] : colocated) m.addEq(pre[v], pre[first], "colocated_before");
    }
    for (auto [e, end] = boost::edges(g); e != end; ++e) {
      const Vertex u = boost::source(*e, g), v = boost::target(*e, g);
      if (g[*e].artificial || g[u].backward || g[v].backward) continue;
      if (!none_before) m.addLe(pre[v], pre[u], "order_before");
      m.addLe(pre[v] + b[v], pre[u] + b[u], "order_after");
    }
  }
  // Tensors crossing B's boundary, each once however many of its consumers are across; with a
  // guess, also those leaving the blocks before B and those entering the blocks after it, at the
  // cheaper of the two kinds' prices (those blocks' devices are of either kind).
  mip::LinExpr in, out, out_before, in_after;
  for (std::size_t i = 0; i < problem.nets.size(); ++i) {
    const Net& net = problem.nets[i];
    const double cost = (accelerator ? net.cost : net.cpu_cost) / threshold;
    const double cheaper = std::min(net.cost, net.cpu_cost) / threshold;
    if (cost > 0) {
      const mip::Var in_n = m.addContinuous(0, 1, "in_" + std::to_string(i));
      const mip::Var out_n = m.addContinuous(0, 1, "out_" + std::to_string(i));
      for (Vertex t : net.sinks) {
        m.addGe(out_n, b[net.source] - b[t], "sent");
        m.addGe(in_n, b[t] - b[net.source], "received");
      }
      if (guess) {
        // Exact at integral b: a tensor is received only by a B holding a consumer and not the
        // producer, sent only by a B holding the producer and not every consumer (for L = load(B)).
        mip::LinExpr consumers_in, consumers_out;
        for (Vertex t : net.sinks) {
          consumers_in += b[t];
          consumers_out += 1.0 - b[t];
        }
        m.addLe(in_n, 1.0 - b[net.source], "received_only");
        m.addLe(in_n, consumers_in, "received_only");
        m.addLe(out_n, b[net.source], "sent_only");
        m.addLe(out_n, consumers_out, "sent_only");
      }
      in.add(in_n, cost);
      out.add(out_n, cost);
    }
    if (guess && cheaper > 0) {
      const mip::Var leaves = m.addContinuous(0, 1, "leaves_" + std::to_string(i));
      const mip::Var enters = m.addContinuous(0, 1, "enters_" + std::to_string(i));
      for (Vertex t : net.sinks) {
        // after(x) = 1 - pre(x) - b(x): enters when the sink is after B and the source is not.
        m.addGe(leaves, pre[net.source] - pre[t], "leaves_before");
        m.addGe(enters, (pre[net.source] + b[net.source]) - (pre[t] + b[t]), "enters_after");
      }
      out_before.add(leaves, cheaper);
      in_after.add(enters, cheaper);
    }
  }
  // The three-superblock program: B is the device that computes the most, so at least threshold.
  if (!guess) m.addGe(compute, 1.0, "bottleneck_work");
  // The rest of the graph on the other devices, fractionally: a_v on accelerators, c_v on CPUs, each
  // kind's work at most its device count times L, and the accelerators' memory.
  const int rest_acc = problem.devices.accelerators - (accelerator ? 1 : 0);
  const int rest_cpu = problem.devices.cpus - (accelerator ? 0 : 1);
  std::vector<mip::LinExpr> a(n), c(n);
  mip::LinExpr acc_work, cpu_work, rest_held;
  std::vector<bool> acc_ok(n), cpu_ok(n);
  for (Vertex v = 0; v < n; ++v) {
    acc_ok[v] = rest_acc > 0 && std::isfinite(g[v].p_acc) && standalone[v] <= capacity;
    cpu_ok[v] = rest_cpu > 0 && std::isfinite(g[v].p_cpu);
    if (acc_ok[v]) {
      const mip::Var x = m.addContinuous(0, 1, "a_" + std::to_string(v));
      a[v] = x;
      acc_work.add(x, g[v].p_acc / threshold);
      if (g[v].memory > 0) rest_held.add(x, g[v].memory / capacity);
    }
    if (cpu_ok[v]) {
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
  const mip::Var load = m.addContinuous(1.0, mip::kUnbounded, "L");
  // Memory held by the accelerators among some nodes' fractions (node memory, and each shared weight
  // once): share[v] is v's fraction there.
  auto heldBy = [&](const std::vector<mip::LinExpr>& share, const std::string& name) {
    mip::LinExpr held;
    for (Vertex v = 0; v < n; ++v) {
      if (g[v].memory > 0 && !share[v].terms().empty()) held += (g[v].memory / capacity) * share[v];
    }
    for (std::size_t w = 0; w < problem.weights.size(); ++w) {
      const mip::Var y = m.addContinuous(0, 1, name + "_" + std::to_string(w));
      held.add(y, problem.weights[w].bytes / capacity);
      for (Vertex r : problem.weights[w].readers) m.addGe(y, share[r], name);
    }
    return held;
  };
  if (rest_acc > 0) {
    for (std::size_t w = 0; w < problem.weights.size(); ++w) {
      const mip::Var y = m.addContinuous(0, 1, "y_" + std::to_string(w));
      rest_held.add(y, problem.weights[w].bytes / capacity);
      for (Vertex r : problem.weights[w].readers) m.addGe(y, a[r], "rest_holds");
    }
    m.addLe(rest_held, static_cast<double>(rest_acc), "rest_memory");
  }
  if (guess && shape.contiguous) {
    // The blocks before B (position of them) and after it (blocks - position - 1) each load at most
    // L: together they compute and send their outgoing (receive their incoming) tensors in at most
    // their count times L, and each kind in at most as many of its devices as there can be there.
    // a1, c1: the fractions before B; the rest's fractions after it are a - a1, c - c1.
    const int before = *shape.position, after = shape.blocks - *shape.position - 1;
    std::vector<mip::LinExpr> a1(n), c1(n), a3(n);
    mip::LinExpr acc1, cpu1;
    for (Vertex v = 0; v < n; ++v) {
      if (before > 0) {
        if (acc_ok[v]) {
          const mip::Var x = m.addContinuous(0, 1, "a1_" + std::to_string(v));
          a1[v] = x;
          m.addLe(x, a[v], "a1_within");
          acc1.add(x, g[v].p_acc / threshold);
        }
        if (cpu_ok[v]) {
          const mip::Var x = m.addContinuous(0, 1, "c1_" + std::to_string(v));
          c1[v] = x;
          m.addLe(x, c[v], "c1_within");
          cpu1.add(x, g[v].p_cpu / threshold);
        }
        m.addEq(a1[v] + c1[v], pre[v], "before_split");
      }
      a3[v] = a[v] - a1[v];
    }
    const mip::LinExpr acc3 = acc_work - acc1, cpu3 = cpu_work - cpu1;
    for (const auto& [v, first] : colocated) {
      if (before > 0) {
        m.addEq(a1[v], a1[first], "colocated_before_split");
        m.addEq(c1[v], c1[first], "colocated_before_split");
      }
    }
    const bool additive = problem.objective.overlap == Overlap::None;
    auto superblock = [&](int count, const mip::LinExpr& acc_w, const mip::LinExpr& cpu_w, const mip::LinExpr& comm,
                          const std::vector<mip::LinExpr>& acc_share, const std::string& name) {
      const mip::LinExpr capacity_rhs = static_cast<double>(count) * mip::LinExpr(load);
      if (additive) {
        m.addLe(acc_w + cpu_w + comm, capacity_rhs, name + "_load");
      } else {
        m.addLe(acc_w + cpu_w, capacity_rhs, name + "_compute");
        m.addLe(comm, capacity_rhs, name + "_comm");
      }
      if (rest_acc > 0) {
        const double accs = std::min(count, rest_acc);
        m.addLe(acc_w, accs * mip::LinExpr(load), name + "_accelerators");
        m.addLe(heldBy(acc_share, name + "_holds"), accs, name + "_memory");
      }
      if (rest_cpu > 0) m.addLe(cpu_w, static_cast<double>(std::min(count, rest_cpu)) * mip::LinExpr(load), name + "_cpus");
    };
    if (before > 0) superblock(before, acc1, cpu1, out_before, a1, "before");
    if (after > 0) superblock(after, acc3, cpu3, in_after, a3, "after");
  }
  if (accelerator) m.addLe(heldBy(b, "holds"), 1.0, "memory");
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
  // A guess makes B the bottleneck: L is B's load, not only at least it (where that load is a sum).
  if (guess && overlap == Overlap::None) m.addLe(load, in + compute + out, "load_is_b");
  m.minimize(load);
  mip::Options options;
  options.time_limit = budget.remaining();
  options.stop = budget.stopFlag();
  options.known_bound = 1.0;  // L >= the threshold: some device computes that much
  // Only the bound matters: no feasibility pump (its LPs do not look at the clock).
  options.feasibility_pump = false;
  options.cuts = false;
  const mip::Result r = mip::solve(m, options);
  VariantBound out_bound;
  switch (r.status) {
    case mip::Status::Infeasible:
      out_bound.outcome = "no such split";
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
  out_bound.value = threshold * (1 - kSafety);  // what L >= threshold alone proves
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
    const VariantBound v = solveProgram(problem, Shape{accelerator, contiguous, std::nullopt, 0}, threshold, share);
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

Expected<BottleneckBound> guessBottleneckBound(const Problem& problem, double threshold, const Budget& budget) {
  if (problem.objective.goal != Goal::Throughput || problem.objective.gpipe)
    return invalidInput("the guess-the-bottleneck programs bound the max-load objective only");
  if (!(threshold > 0)) return BottleneckBound{};
  const int blocks = problem.devices.accelerators + problem.devices.cpus;
  std::vector<Shape> shapes;
  for (int position = 0; position < blocks; ++position) {
    for (const bool accelerator : {true, false}) {
      if ((accelerator ? problem.devices.accelerators : problem.devices.cpus) > 0)
        shapes.push_back(Shape{accelerator, true, position, blocks});
    }
  }
  BottleneckBound out;
  out.value = kInfinity;
  int cut = 0, impossible = 0;
  const Shape* lowest = nullptr;
  std::string lowest_outcome;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    // An equal share of what is left to each program still to run.
    const std::size_t left = shapes.size() - i;
    const Budget share = left == 1 ? budget : budget.within(budget.remaining() / static_cast<double>(left));
    const VariantBound v = solveProgram(problem, shapes[i], threshold, share);
    cut += v.cut_short;
    impossible += !std::isfinite(v.value);
    if (v.value < out.value) {
      out.value = v.value;
      lowest = &shapes[i];
      lowest_outcome = v.outcome;
    }
  }
  out.cut_short = cut > 0;
  if (!lowest) return infeasible("no contiguous split puts every block within one device's limits");
  char text[200];
  std::snprintf(text, sizeof text, "lowest %.6g (%s) with block %d of %d on %s; %zu programs, %d cut short, %d without such a split",
                out.value, lowest_outcome.c_str(), *lowest->position + 1, blocks,
                lowest->accelerator ? "an accelerator" : "a cpu", shapes.size(), cut, impossible);
  out.detail = text;
  return out;
}

}  // namespace placer
