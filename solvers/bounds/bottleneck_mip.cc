#include "solvers/bounds/bottleneck_mip.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

#include "core/evaluate.h"
#include "solvers/bounds/round_off.h"
#include "solvers/mip.h"

namespace placer {

namespace {


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

// One program, built part by part in the order of solvers/README.md: B's nodes, the order of the
// blocks, the tensors crossing, the rest of the graph on the other devices, a guess's superblocks,
// and B's load. Times are in units of the threshold.
class Program {
 public:
  Program(const Problem& problem, const Shape& shape, double threshold)
      : p_(problem),
        g_(problem.graph),
        n_(boost::num_vertices(problem.graph)),
        shape_(shape),
        guess_(shape.position.has_value()),
        threshold_(threshold),
        capacity_(problem.devices.memory),
        standalone_(standaloneMemory(problem)),
        rest_acc_(problem.devices.accelerators - (shape.accelerator ? 1 : 0)),
        rest_cpu_(problem.devices.cpus - (shape.accelerator ? 0 : 1)) {
    placeB();
    if (shape_.contiguous) orderBlocks();
    crossings();
    placeRest();
    if (guess_ && shape_.contiguous) superblocks();
    loadRows();
  }

  VariantBound solve(const Budget& budget, mip::Backend backend) const;

 private:
  double time(Vertex v) const { return (shape_.accelerator ? g_[v].p_acc : g_[v].p_cpu) / threshold_; }
  void placeB();
  void orderBlocks();
  void crossings();
  void placeRest();
  void superblocks();
  void superblock(int count, const mip::LinExpr& acc_work, const mip::LinExpr& cpu_work, const mip::LinExpr& comm,
                  const std::vector<mip::LinExpr>& acc_share, const std::string& name);
  void loadRows();
  mip::LinExpr heldBy(const std::vector<mip::LinExpr>& share, const std::string& name);

  const Problem& p_;
  const OpGraph& g_;
  const std::size_t n_;
  const Shape shape_;
  const bool guess_;
  const double threshold_, capacity_;
  const std::vector<double> standalone_;
  const int rest_acc_, rest_cpu_;
  mip::Model m_;
  std::vector<mip::LinExpr> b_, pre_, a_, c_;  // B; before B; the rest on accelerators, on CPUs
  std::vector<bool> acc_ok_, cpu_ok_;          // which kinds of device the rest may use for a node
  std::vector<std::pair<Vertex, Vertex>> colocated_;  // (node, the first of its class)
  mip::LinExpr compute_, in_, out_, out_before_, in_after_, acc_work_, cpu_work_;
  mip::Var load_;
};

// b_v: v in B (fixed at 0 where v cannot be on this kind of device). Colocated nodes are on one
// device: in B together or not at all, and below in the same superblock with the same fractions;
// each node is tied to the first of its class.
void Program::placeB() {
  b_.resize(n_);
  for (Vertex v = 0; v < n_; ++v) {
    const bool fits = std::isfinite(time(v)) && (!shape_.accelerator || standalone_[v] <= capacity_);
    if (!fits) continue;
    const mip::Var x = m_.addBinary("b_" + std::to_string(v));
    b_[v] = x;
    compute_.add(x, time(v));
  }
  std::map<int, Vertex> first_of_class;
  for (Vertex v = 0; v < n_; ++v) {
    if (!g_[v].colocation) continue;
    auto [it, inserted] = first_of_class.try_emplace(*g_[v].colocation, v);
    if (inserted) continue;
    colocated_.emplace_back(v, it->second);
    m_.addEq(b_[v], b_[it->second], "colocated");
  }
  // The three-superblock program: B is the device that computes the most, so at least threshold.
  if (!guess_) m_.addGe(compute_, 1.0, "bottleneck_work");
}

// pre_v: v in a block before B; after = 1 - pre - b. Every forward data edge u -> v keeps its
// order: v before B only if u is, u after B only if v is.
void Program::orderBlocks() {
  pre_.resize(n_);
  const bool none_before = guess_ && *shape_.position == 0;
  const bool none_after = guess_ && *shape_.position == shape_.blocks - 1;
  if (!none_before) {
    for (Vertex v = 0; v < n_; ++v) {
      pre_[v] = m_.addBinary("pre_" + std::to_string(v));
      m_.addLe(pre_[v] + b_[v], 1.0, "one_place");
      if (none_after) m_.addEq(pre_[v] + b_[v], 1.0, "none_after");
    }
    for (const auto& [v, first] : colocated_) m_.addEq(pre_[v], pre_[first], "colocated_before");
  }
  for (auto [e, end] = boost::edges(g_); e != end; ++e) {
    const Vertex u = boost::source(*e, g_), v = boost::target(*e, g_);
    if (g_[*e].artificial || g_[u].backward || g_[v].backward) continue;
    if (!none_before) m_.addLe(pre_[v], pre_[u], "order_before");
    m_.addLe(pre_[v] + b_[v], pre_[u] + b_[u], "order_after");
  }
}

// Tensors crossing B's boundary, each once however many of its consumers are across; with a guess,
// also those leaving the blocks before B and those entering the blocks after it, at the cheaper of
// the two kinds' prices (those blocks' devices are of either kind).
void Program::crossings() {
  if (pre_.empty()) pre_.resize(n_);
  for (std::size_t i = 0; i < p_.nets.size(); ++i) {
    const Net& net = p_.nets[i];
    const double cost = (shape_.accelerator ? net.cost : net.cpu_cost) / threshold_;
    const double cheaper = std::min(net.cost, net.cpu_cost) / threshold_;
    if (cost > 0) {
      const mip::Var in_n = m_.addContinuous(0, 1, "in_" + std::to_string(i));
      const mip::Var out_n = m_.addContinuous(0, 1, "out_" + std::to_string(i));
      for (Vertex t : net.sinks) {
        m_.addGe(out_n, b_[net.source] - b_[t], "sent");
        m_.addGe(in_n, b_[t] - b_[net.source], "received");
      }
      if (guess_) {
        // Exact at integral b: a tensor is received only by a B holding a consumer and not the
        // producer, sent only by a B holding the producer and not every consumer (for L = load(B)).
        mip::LinExpr consumers_in, consumers_out;
        for (Vertex t : net.sinks) {
          consumers_in += b_[t];
          consumers_out += 1.0 - b_[t];
        }
        m_.addLe(in_n, 1.0 - b_[net.source], "received_only");
        m_.addLe(in_n, consumers_in, "received_only");
        m_.addLe(out_n, b_[net.source], "sent_only");
        m_.addLe(out_n, consumers_out, "sent_only");
      }
      in_.add(in_n, cost);
      out_.add(out_n, cost);
    }
    if (guess_ && cheaper > 0) {
      const mip::Var leaves = m_.addContinuous(0, 1, "leaves_" + std::to_string(i));
      const mip::Var enters = m_.addContinuous(0, 1, "enters_" + std::to_string(i));
      for (Vertex t : net.sinks) {
        // after(x) = 1 - pre(x) - b(x): enters when the sink is after B and the source is not.
        m_.addGe(leaves, pre_[net.source] - pre_[t], "leaves_before");
        m_.addGe(enters, (pre_[net.source] + b_[net.source]) - (pre_[t] + b_[t]), "enters_after");
      }
      out_before_.add(leaves, cheaper);
      in_after_.add(enters, cheaper);
    }
  }
}

// The rest of the graph on the other devices, fractionally: a_v on accelerators, c_v on CPUs, each
// kind's work at most its device count times L (in loadRows), and the accelerators' memory.
void Program::placeRest() {
  a_.resize(n_);
  c_.resize(n_);
  acc_ok_.resize(n_);
  cpu_ok_.resize(n_);
  mip::LinExpr rest_held;
  for (Vertex v = 0; v < n_; ++v) {
    acc_ok_[v] = rest_acc_ > 0 && std::isfinite(g_[v].p_acc) && standalone_[v] <= capacity_;
    cpu_ok_[v] = rest_cpu_ > 0 && std::isfinite(g_[v].p_cpu);
    if (acc_ok_[v]) {
      const mip::Var x = m_.addContinuous(0, 1, "a_" + std::to_string(v));
      a_[v] = x;
      acc_work_.add(x, g_[v].p_acc / threshold_);
      if (g_[v].memory > 0) rest_held.add(x, g_[v].memory / capacity_);
    }
    if (cpu_ok_[v]) {
      const mip::Var x = m_.addContinuous(0, 1, "c_" + std::to_string(v));
      c_[v] = x;
      cpu_work_.add(x, g_[v].p_cpu / threshold_);
    }
    m_.addEq(b_[v] + a_[v] + c_[v], 1.0, "placed");
  }
  for (const auto& [v, first] : colocated_) {
    m_.addEq(a_[v], a_[first], "colocated_rest");
    m_.addEq(c_[v], c_[first], "colocated_rest");
  }
  load_ = m_.addContinuous(1.0, mip::kUnbounded, "L");
  if (rest_acc_ > 0) {
    for (std::size_t w = 0; w < p_.weights.size(); ++w) {
      const mip::Var y = m_.addContinuous(0, 1, "y_" + std::to_string(w));
      rest_held.add(y, p_.weights[w].bytes / capacity_);
      for (Vertex r : p_.weights[w].readers) m_.addGe(y, a_[r], "rest_holds");
    }
    m_.addLe(rest_held, static_cast<double>(rest_acc_), "rest_memory");
  }
}

// Memory held by the accelerators among some nodes' fractions (node memory, and each shared weight
// once): share[v] is v's fraction there.
mip::LinExpr Program::heldBy(const std::vector<mip::LinExpr>& share, const std::string& name) {
  mip::LinExpr held;
  for (Vertex v = 0; v < n_; ++v) {
    if (g_[v].memory > 0 && !share[v].terms().empty()) held += (g_[v].memory / capacity_) * share[v];
  }
  for (std::size_t w = 0; w < p_.weights.size(); ++w) {
    const mip::Var y = m_.addContinuous(0, 1, name + "_" + std::to_string(w));
    held.add(y, p_.weights[w].bytes / capacity_);
    for (Vertex r : p_.weights[w].readers) m_.addGe(y, share[r], name);
  }
  return held;
}

// A guess: the blocks before B (position of them) and after it (blocks - position - 1) each load
// at most L. a1, c1: the rest's fractions before B; after it they are a - a1, c - c1.
void Program::superblocks() {
  const int before = *shape_.position, after = shape_.blocks - *shape_.position - 1;
  std::vector<mip::LinExpr> a1(n_), c1(n_), a3(n_);
  mip::LinExpr acc1, cpu1;
  for (Vertex v = 0; v < n_; ++v) {
    if (before > 0) {
      if (acc_ok_[v]) {
        const mip::Var x = m_.addContinuous(0, 1, "a1_" + std::to_string(v));
        a1[v] = x;
        m_.addLe(x, a_[v], "a1_within");
        acc1.add(x, g_[v].p_acc / threshold_);
      }
      if (cpu_ok_[v]) {
        const mip::Var x = m_.addContinuous(0, 1, "c1_" + std::to_string(v));
        c1[v] = x;
        m_.addLe(x, c_[v], "c1_within");
        cpu1.add(x, g_[v].p_cpu / threshold_);
      }
      m_.addEq(a1[v] + c1[v], pre_[v], "before_split");
    }
    a3[v] = a_[v] - a1[v];
  }
  if (before > 0) {
    for (const auto& [v, first] : colocated_) {
      m_.addEq(a1[v], a1[first], "colocated_before_split");
      m_.addEq(c1[v], c1[first], "colocated_before_split");
    }
    superblock(before, acc1, cpu1, out_before_, a1, "before");
  }
  if (after > 0) superblock(after, acc_work_ - acc1, cpu_work_ - cpu1, in_after_, a3, "after");
}

// `count` blocks of load at most L each: together they compute and send their outgoing (receive
// their incoming) tensors in at most count L, and each kind in at most as many of its devices as
// there can be there, within their memory.
void Program::superblock(int count, const mip::LinExpr& acc_work, const mip::LinExpr& cpu_work,
                         const mip::LinExpr& comm, const std::vector<mip::LinExpr>& acc_share,
                         const std::string& name) {
  const mip::LinExpr capacity = static_cast<double>(count) * mip::LinExpr(load_);
  if (p_.objective.overlap == Overlap::None) {
    m_.addLe(acc_work + cpu_work + comm, capacity, name + "_load");
  } else {
    m_.addLe(acc_work + cpu_work, capacity, name + "_compute");
    m_.addLe(comm, capacity, name + "_comm");
  }
  if (rest_acc_ > 0) {
    const double accelerators = std::min(count, rest_acc_);
    m_.addLe(acc_work, accelerators * mip::LinExpr(load_), name + "_accelerators");
    m_.addLe(heldBy(acc_share, name + "_holds"), accelerators, name + "_memory");
  }
  if (rest_cpu_ > 0)
    m_.addLe(cpu_work, static_cast<double>(std::min(count, rest_cpu_)) * mip::LinExpr(load_), name + "_cpus");
}

// B within one accelerator's memory; the rest within the other devices' time; L at least B's load
// (combined per the overlap mode), and with a guess exactly it where that load is a sum.
void Program::loadRows() {
  if (shape_.accelerator) m_.addLe(heldBy(b_, "holds"), 1.0, "memory");
  if (rest_acc_ > 0) m_.addLe(acc_work_, static_cast<double>(rest_acc_) * load_, "rest_accelerators");
  if (rest_cpu_ > 0) m_.addLe(cpu_work_, static_cast<double>(rest_cpu_) * load_, "rest_cpus");
  const Overlap overlap = shape_.accelerator ? p_.objective.overlap : Overlap::None;
  switch (overlap) {
    case Overlap::None:
      m_.addGe(load_, in_ + compute_ + out_, "load");
      break;
    case Overlap::Max:
      m_.addGe(load_, compute_, "load_compute");
      m_.addGe(load_, in_ + out_, "load_comm");
      break;
    case Overlap::Duplex:
      m_.addGe(load_, in_, "load_in");
      m_.addGe(load_, compute_, "load_compute");
      m_.addGe(load_, out_, "load_out");
      break;
  }
  if (guess_ && overlap == Overlap::None) m_.addLe(load_, in_ + compute_ + out_, "load_is_b");
  m_.minimize(load_);
}

VariantBound Program::solve(const Budget& budget, mip::Backend backend) const {
  mip::Options options;
  options.backend = backend;
  options.time_limit = budget.remaining();
  options.stop = budget.stopFlag();
  options.known_bound = 1.0;  // L >= the threshold: some device computes that much
  // Only the bound matters: no feasibility pump (its LPs do not look at the clock).
  options.feasibility_pump = false;
  options.cuts = false;
  const mip::Result r = mip::solve(m_, options);
  VariantBound out;
  switch (r.status) {
    case mip::Status::Infeasible:
      out.outcome = "no such split";
      return out;
    case mip::Status::Optimal:
      out.value = r.objective * threshold_ * (1 - kBoundSafety);
      out.outcome = "optimal";
      return out;
    case mip::Status::Feasible:
    case mip::Status::NoSolution:
      out.value = std::max(1.0, r.bound) * threshold_ * (1 - kBoundSafety);
      out.cut_short = true;
      out.outcome = "cut short";
      return out;
    case mip::Status::Unknown:  // the call failed
      break;
  }
  out.value = threshold_ * (1 - kBoundSafety);  // what L >= threshold alone proves
  out.cut_short = true;
  out.outcome = "failed: " + r.message;
  return out;
}

VariantBound solveProgram(const Problem& problem, const Shape& shape, double threshold, const Budget& budget,
                          mip::Backend backend) {
  return Program(problem, shape, threshold).solve(budget, backend);
}

}  // namespace

Expected<BottleneckBound> bottleneckBound(const Problem& problem, bool contiguous, double threshold,
                                          const Budget& budget, mip::Backend backend) {
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
    const VariantBound v = solveProgram(problem, Shape{accelerator, contiguous, std::nullopt, 0}, threshold, share, backend);
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

Expected<BottleneckBound> guessBottleneckBound(const Problem& problem, double threshold, const Budget& budget,
                                               mip::Backend backend) {
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
    const VariantBound v = solveProgram(problem, shapes[i], threshold, share, backend);
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
