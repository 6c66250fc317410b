// The exact DP, run through the default pipeline, against exhaustive search on tiny instances.
//
// The brute force below knows nothing of ideals, nets, contractions or passes: it tries every
// assignment of nodes to devices, keeps the ones that respect the constraints (unsupported nodes off
// accelerators, accelerator memory, colocation classes, acyclic quotient graph of the forward part)
// and scores them with its own load computation written from the cost model of Tarnawski et al.
// 2020 (§3, App. B). The DP's optimum must equal the brute-force optimum, every placement it returns
// must be valid and score what it claims, and when no valid placement exists the pipeline must say
// Infeasible. Every case is generated from its own seed, printed on failure, so a failing case can be
// rebuilt alone with randomPlainInstance(seed) / randomTrainingInstance(seed).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iomanip>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/evaluate.h"
#include "core/problem.h"
#include "core/shared_weights.h"
#include "core/status.h"
#include "passes/pass_manager.h"
#include "tests/graph_builder.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace dp_bruteforce_test {

constexpr int kMaxDevices = 4;  // at most 3 accelerators and 1 CPU

// ---------------------------------------------------------------------------------------------
// Instances: a plain description that both the brute force and GraphBuilder read.

struct NodeSpec {
  double p_acc = 0;  // kInfinity when unsupported on accelerators
  double p_cpu = 0;
  double memory = 0;
  std::optional<int> cls;
  bool backward = false;
};

struct EdgeSpec {
  int from = 0, to = 0;
  double cost = 0;
  double cpu_cost = 0;  // what a CPU core pays for the tensor at a stage boundary
};

// A weight several nodes read: an accelerator holding any of them holds it once.
struct WeightSpec {
  double bytes = 0;
  std::vector<int> readers;  // distinct
};

struct Instance {
  std::vector<NodeSpec> nodes;
  std::vector<EdgeSpec> edges;
  std::vector<WeightSpec> weights;
  DeviceSet devices;
  bool training = false;            // backward nodes follow their forward partner's colocation class
  Overlap overlap = Overlap::None;  // how an accelerator combines compute and transfers (App. C.1)

  int size() const { return static_cast<int>(nodes.size()); }

  std::string describe() const {
    std::ostringstream out;
    out << std::setprecision(17);
    out << "devices: " << devices.accelerators << " accelerator(s) of memory " << devices.memory << ", "
        << devices.cpus << " cpu(s), overlap "
        << (overlap == Overlap::None  ? "none"
            : overlap == Overlap::Max ? "max"
                                      : "duplex")
        << "\nnodes:\n";
    for (int v = 0; v < size(); ++v) {
      const NodeSpec& s = nodes[v];
      out << "  " << v << ": p_acc=" << s.p_acc << " p_cpu=" << s.p_cpu << " mem=" << s.memory;
      if (s.cls) out << " cls=" << *s.cls;
      if (s.backward) out << " backward";
      out << "\n";
    }
    out << "edges:";
    for (const EdgeSpec& e : edges) {
      out << " " << e.from << "->" << e.to << "(" << e.cost;
      if (e.cpu_cost != 0) out << ", cpu " << e.cpu_cost;
      out << ")";
    }
    out << "\n";
    for (const WeightSpec& w : weights) {
      out << "shared weight of " << w.bytes << " read by";
      for (int r : w.readers)
        out << " " << r;
      out << "\n";
    }
    return out.str();
  }
};

Problem buildProblem(const Instance& inst) {
  GraphBuilder b(inst.devices);
  for (const NodeSpec& s : inst.nodes) {
    const int id = b.node(std::isinf(s.p_acc) ? 1.0 : s.p_acc, s.p_cpu, s.memory);
    if (std::isinf(s.p_acc)) b.unsupported(id);
    if (s.cls) b.colocate(id, *s.cls);
    if (s.backward) b.backward(id);
  }
  for (const EdgeSpec& e : inst.edges)
    b.edge(e.from, e.to, e.cost, e.cpu_cost);
  for (const WeightSpec& w : inst.weights)
    b.sharedWeight(w.bytes, w.readers);
  b.overlap(inst.overlap);
  Problem problem = b.build();
  // Training graphs colocate the readers of a shared weight (the default, auto).
  EXPECT_TRUE(applySharedWeightMode(problem, SharedWeightMode::Auto).isOk());
  return problem;
}

// An accelerator's memory under `dev`: its nodes' own memory and each shared weight one of them reads,
// once, written out here rather than taken from the library.
double acceleratorMemory(const Instance& inst, const std::vector<int>& dev, int d) {
  double memory = 0;
  for (int v = 0; v < inst.size(); ++v) {
    if (dev[v] == d) memory += inst.nodes[v].memory;
  }
  for (const WeightSpec& w : inst.weights) {
    if (std::any_of(w.readers.begin(), w.readers.end(), [&](int r) { return dev[r] == d; }))
      memory += w.bytes;
  }
  return memory;
}

std::string placementString(const std::vector<int>& device_of) {
  std::string s = "[";
  for (std::size_t v = 0; v < device_of.size(); ++v)
    s += (v ? " " : "") + std::to_string(device_of[v]);
  return s + "]";
}

bool near(double a, double b) {
  if (a == b) return true;
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// ---------------------------------------------------------------------------------------------
// The brute force, with its own validity test and load computation.

class BruteForce {
 public:
  struct Result {
    bool feasible = false;
    double best = kInfinity;
    std::vector<int> argmin;
    std::int64_t enumerated = 0;
    std::int64_t valid = 0;
    // A spread of enumerated placements (valid and not) for cross-checking the library's evaluator.
    std::vector<std::vector<int>> samples;
  };

  explicit BruteForce(const Instance& inst) : inst_(inst), n_(inst.size()) {
    const int k = inst.devices.accelerators;
    devices_ = inst.devices.count();
    accelerators_ = k;
    // One transfer per node whose outgoing edges all cost the same; one per edge otherwise.
    for (int u = 0; u < n_; ++u) {
      std::vector<const EdgeSpec*> outs;
      for (const EdgeSpec& e : inst.edges) {
        if (e.from == u) outs.push_back(&e);
      }
      if (outs.empty()) continue;
      const bool uniform = std::all_of(outs.begin(), outs.end(), [&](const EdgeSpec* e) {
        return e->cost == outs.front()->cost && e->cpu_cost == outs.front()->cpu_cost;
      });
      if (uniform) {
        Transfer t{u, {}, outs.front()->cost, outs.front()->cpu_cost};
        for (const EdgeSpec* e : outs) {
          if (std::find(t.sinks.begin(), t.sinks.end(), e->to) == t.sinks.end()) t.sinks.push_back(e->to);
        }
        transfers_.push_back(std::move(t));
      } else {
        for (const EdgeSpec* e : outs)
          transfers_.push_back(Transfer{u, {e->to}, e->cost, e->cpu_cost});
      }
    }
    // Colocation: every node of a class must sit with the class's first node.
    for (int v = 0; v < n_; ++v) {
      if (!inst.nodes[v].cls) continue;
      for (int r = 0; r < v; ++r) {
        if (inst.nodes[r].cls == inst.nodes[v].cls) {
          same_class_.emplace_back(v, r);
          break;
        }
      }
    }
    for (const EdgeSpec& e : inst.edges) {
      if (!inst.nodes[e.from].backward && !inst.nodes[e.to].backward)
        forward_edges_.emplace_back(e.from, e.to);
    }
    colocate_weights_ =
        std::any_of(inst.nodes.begin(), inst.nodes.end(), [](const NodeSpec& s) { return s.backward; });
    // What is enumerated: every node, or (training) the forward nodes, backward nodes following the
    // first forward node of their class.
    follow_.assign(n_, -1);
    for (int v = 0; v < n_; ++v) {
      if (!inst.training || !inst.nodes[v].backward) {
        free_.push_back(v);
        continue;
      }
      for (int f = 0; f < n_; ++f) {
        if (!inst.nodes[f].backward && inst.nodes[f].cls && inst.nodes[f].cls == inst.nodes[v].cls) {
          follow_[v] = f;
          break;
        }
      }
    }
  }

  bool hasFollowers() const {
    for (int v = 0; v < n_; ++v) {
      if (inst_.training && inst_.nodes[v].backward && follow_[v] < 0) return false;
    }
    return true;
  }

  bool valid(const std::vector<int>& dev) const {
    for (int v = 0; v < n_; ++v) {
      if (dev[v] < accelerators_ && std::isinf(inst_.nodes[v].p_acc)) return false;
    }
    for (int d = 0; d < accelerators_; ++d) {
      if (acceleratorMemory(inst_, dev, d) > inst_.devices.memory) return false;
    }
    for (const auto& [v, r] : same_class_) {
      if (dev[v] != dev[r]) return false;
    }
    if (colocate_weights_) {  // a graph with backward nodes colocates the readers of a shared weight
      for (const WeightSpec& w : inst_.weights) {
        for (int r : w.readers) {
          if (dev[r] != dev[w.readers.front()]) return false;
        }
      }
    }
    // Quotient graph of the forward part: repeatedly remove devices with no successor left.
    std::array<unsigned, kMaxDevices> succ{};
    for (const auto& [u, w] : forward_edges_) {
      if (dev[u] != dev[w]) succ[dev[u]] |= 1u << dev[w];
    }
    unsigned remaining = (1u << devices_) - 1;
    bool progress = true;
    while (remaining != 0 && progress) {
      progress = false;
      for (int d = 0; d < devices_; ++d) {
        if ((remaining >> d & 1u) && (succ[d] & remaining) == 0) {
          remaining &= ~(1u << d);
          progress = true;
        }
      }
    }
    return remaining == 0;
  }

  // Max-load: accelerators pay p_acc plus every transfer they send or receive (once per transfer),
  // CPUs pay p_cpu plus the CPU cost of every transfer they send or receive (0 in the paper's model).
  // With overlap, an accelerator's load is max(compute, in + out) (Max) or max(in, compute, out)
  // (Duplex) instead of the sum; a CPU's is always the sum.
  double load(const std::vector<int>& dev) const {
    std::array<double, kMaxDevices> compute{}, in{}, out{};
    for (int v = 0; v < n_; ++v) {
      const int d = dev[v];
      compute[d] += d < accelerators_ ? inst_.nodes[v].p_acc : inst_.nodes[v].p_cpu;
    }
    for (const Transfer& t : transfers_) {
      const int from = dev[t.source];
      unsigned receivers = 0;
      for (int s : t.sinks) {
        if (dev[s] != from) receivers |= 1u << dev[s];
      }
      if (receivers == 0) continue;
      out[from] += from < accelerators_ ? t.cost : t.cpu_cost;
      for (int d = 0; d < devices_; ++d) {
        if (receivers >> d & 1u) in[d] += d < accelerators_ ? t.cost : t.cpu_cost;
      }
    }
    double worst = 0;
    for (int d = 0; d < devices_; ++d) {
      double load = in[d] + compute[d] + out[d];
      if (d < accelerators_) {
        switch (inst_.overlap) {
          case Overlap::None:
            load = in[d] + compute[d] + out[d];
            break;
          case Overlap::Max:
            load = std::max(compute[d], in[d] + out[d]);
            break;
          case Overlap::Duplex:
            load = std::max({in[d], compute[d], out[d]});
            break;
        }
      }
      worst = std::max(worst, load);
    }
    return worst;
  }

  Result solve(std::size_t wanted_samples = 48) const {
    Result result;
    const std::size_t f = free_.size();
    std::int64_t total = 1;
    for (std::size_t i = 0; i < f; ++i)
      total *= devices_;
    const std::int64_t stride = std::max<std::int64_t>(1, total / static_cast<std::int64_t>(wanted_samples));
    std::vector<int> choice(f, 0);
    std::vector<int> dev(n_, 0);
    for (std::int64_t index = 0; index < total; ++index) {
      for (std::size_t i = 0; i < f; ++i)
        dev[free_[i]] = choice[i];
      for (int v = 0; v < n_; ++v) {
        if (follow_[v] >= 0) dev[v] = dev[follow_[v]];
      }
      ++result.enumerated;
      if (index % stride == 0) result.samples.push_back(dev);
      if (valid(dev)) {
        ++result.valid;
        const double value = load(dev);
        if (!result.feasible || value < result.best) {
          result.feasible = true;
          result.best = value;
          result.argmin = dev;
        }
      }
      for (std::size_t i = 0; i < f; ++i) {  // odometer
        if (++choice[i] < devices_) break;
        choice[i] = 0;
      }
    }
    return result;
  }

 private:
  struct Transfer {
    int source;
    std::vector<int> sinks;
    double cost;
    double cpu_cost;
  };

  const Instance& inst_;
  int n_ = 0;
  int devices_ = 0;
  int accelerators_ = 0;
  std::vector<Transfer> transfers_;
  std::vector<std::pair<int, int>> same_class_;
  std::vector<std::pair<int, int>> forward_edges_;
  std::vector<int> free_;
  std::vector<int> follow_;
  bool colocate_weights_ = false;
};

// ---------------------------------------------------------------------------------------------
// Random instances.

struct Draw {
  std::mt19937 rng;
  bool integral = false;  // integral values make ties, which exercise the DP's trace-back

  explicit Draw(std::uint32_t seed) : rng(seed) {}
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
  double value(double lo, double hi) {
    if (integral) return integer(static_cast<int>(lo), static_cast<int>(hi));
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  }
};

// A random DAG on n nodes whose topological order is a random permutation of the ids.
std::vector<std::pair<int, int>> randomDagEdges(Draw& draw, int n, std::vector<int>& order) {
  order.resize(n);
  for (int i = 0; i < n; ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), draw.rng);
  const double density = std::array<double, 4>{0.15, 0.3, 0.45, 0.7}[draw.integer(0, 3)];
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (!draw.chance(density)) continue;
      edges.emplace_back(order[i], order[j]);
      if (draw.chance(0.04)) edges.emplace_back(order[i], order[j]);  // the same tensor consumed twice
    }
  }
  std::shuffle(edges.begin(), edges.end(), draw.rng);
  return edges;
}

void randomDevices(Draw& draw, Instance& inst) {
  inst.devices.accelerators = draw.integer(1, 3);
  inst.devices.cpus = draw.integer(0, 1);
  double total = 0, largest = 0;
  for (const NodeSpec& s : inst.nodes) {
    total += s.memory;
    largest = std::max(largest, s.memory);
  }
  const int mode = draw.integer(0, 3);
  if (mode == 0 || total == 0) {
    inst.devices.memory = 1e18;
  } else {
    // From "not even the largest node fits" to "everything fits on one accelerator".
    inst.devices.memory = draw.integer(std::max(0, static_cast<int>(largest) - 1), static_cast<int>(total));
  }
}

void randomNode(Draw& draw, NodeSpec& s, bool with_memory, double unsupported_p, double scale) {
  if (draw.chance(0.15)) {  // takes no time: a candidate for fold-leaves
    s.p_acc = 0;
    s.p_cpu = 0;
    s.memory = draw.chance(0.7) ? 0 : (with_memory ? draw.integer(1, 3) : 0);
    return;
  }
  s.p_acc = draw.value(1, 10 * scale);
  s.p_cpu = draw.value(1, 30 * scale);
  s.memory = with_memory ? draw.integer(0, 4) : 0;
  if (draw.chance(unsupported_p)) s.p_acc = kInfinity;
}

// Outgoing edge costs: mostly one cost per node, sometimes a different cost per edge (subdivide).
void randomCosts(Draw& draw, int n, const std::vector<std::pair<int, int>>& edges,
                 std::vector<EdgeSpec>& out) {
  std::vector<double> uniform_cost(n);
  std::vector<bool> differing(n);
  for (int u = 0; u < n; ++u) {
    uniform_cost[u] = draw.chance(0.2) ? 0 : draw.value(1, 6);
    differing[u] = draw.chance(0.3);
  }
  for (const auto& [u, w] : edges) {
    const double c = differing[u] ? draw.value(0, 6) + (draw.integral ? 0 : 0.25) : uniform_cost[u];
    out.push_back(EdgeSpec{u, w, c});
  }
}

Instance randomPlainInstance(std::uint32_t seed) {
  Draw draw(seed);
  draw.integral = draw.chance(0.5);
  Instance inst;
  const int n = draw.integer(1, 9);
  inst.nodes.resize(n);
  const bool with_memory = draw.chance(0.7);
  const double unsupported_p = draw.chance(0.5) ? 0.15 : 0;
  for (NodeSpec& s : inst.nodes)
    randomNode(draw, s, with_memory, unsupported_p, 1);
  const int classes = draw.integer(0, 3);
  if (classes > 0) {
    for (NodeSpec& s : inst.nodes) {
      if (draw.chance(0.3)) s.cls = draw.integer(0, classes - 1) * 7 + 3;  // arbitrary class ids
    }
  }
  std::vector<int> order;
  auto edges = randomDagEdges(draw, n, order);
  randomCosts(draw, n, edges, inst.edges);
  randomDevices(draw, inst);
  // Drawn last so the rest of each case does not depend on it.
  const int mode = draw.integer(0, 5);
  inst.overlap = mode == 4 ? Overlap::Max : mode == 5 ? Overlap::Duplex : Overlap::None;
  return inst;
}

// A forward DAG, a backward mirror for most forward nodes (colocated through a shared class),
// backward edges mirroring the forward edges reversed, and an edge from each forward node to its
// mirror. Sometimes two forward nodes share a class (and so do their mirrors), and sometimes a
// forward node also feeds the mirrors of its successors (activations kept for the backward pass).
Instance randomTrainingInstance(std::uint32_t seed) {
  Draw draw(seed);
  draw.integral = draw.chance(0.5);
  Instance inst;
  inst.training = true;
  const int f = draw.integer(1, 7);
  const bool with_memory = draw.chance(0.7);
  const double unsupported_p = draw.chance(0.5) ? 0.1 : 0;
  inst.nodes.resize(f);
  for (int v = 0; v < f; ++v) {
    randomNode(draw, inst.nodes[v], with_memory, unsupported_p, 1);
    inst.nodes[v].cls = 100 + v;
  }
  if (f >= 2 && draw.chance(0.25)) {
    const int a = draw.integer(0, f - 1), b = draw.integer(0, f - 1);
    inst.nodes[b].cls = inst.nodes[a].cls;
  }
  std::vector<int> order;
  auto forward_edges = randomDagEdges(draw, f, order);
  std::vector<int> mirror(f, -1);
  for (int v = 0; v < f; ++v) {
    if (!draw.chance(0.85)) {
      if (draw.chance(0.5)) inst.nodes[v].cls.reset();  // a forward-only node needs no class
      continue;
    }
    NodeSpec b;
    randomNode(draw, b, with_memory, unsupported_p / 2, 2);
    if (inst.nodes[v].p_acc == 0 && inst.nodes[v].p_cpu == 0 && draw.chance(0.6))
      b = NodeSpec{};  // free pair
    b.cls = inst.nodes[v].cls;
    b.backward = true;
    mirror[v] = static_cast<int>(inst.nodes.size());
    inst.nodes.push_back(b);
  }
  const int n = inst.size();
  std::vector<std::pair<int, int>> edges = forward_edges;
  for (const auto& [u, w] : forward_edges) {
    if (mirror[u] >= 0 && mirror[w] >= 0) edges.emplace_back(mirror[w], mirror[u]);
  }
  for (int v = 0; v < f; ++v) {
    if (mirror[v] >= 0) edges.emplace_back(v, mirror[v]);
  }
  if (draw.chance(0.5)) {  // activations saved for the backward pass: u -> w' for a forward edge u -> w
    for (const auto& [u, w] : forward_edges) {
      if (mirror[w] >= 0 && draw.chance(0.35)) edges.emplace_back(u, mirror[w]);
    }
  }
  randomCosts(draw, n, edges, inst.edges);
  randomDevices(draw, inst);
  // Drawn last so the rest of each case does not depend on it.
  const int mode = draw.integer(0, 5);
  inst.overlap = mode == 4 ? Overlap::Max : mode == 5 ? Overlap::Duplex : Overlap::None;
  return inst;
}

// Adds 1-3 shared weights read by 2-4 distinct nodes each, and redraws the memory limit from "no
// reader fits with its weight" up to "everything fits on one accelerator", so the limit sometimes
// forces readers together and sometimes lets copies fit. Its own random stream, so the instance it
// starts from is the one the generators above give for the same seed.
Instance withSharedWeights(Instance inst, std::uint32_t seed) {
  Draw draw(seed ^ 0x5a5a5a5au);
  const int n = inst.size();
  if (n < 2) return inst;
  const int count = draw.integer(1, 3);
  for (int i = 0; i < count; ++i) {
    WeightSpec w;
    w.bytes = draw.integer(1, 6);
    std::vector<int> ids(n);
    for (int v = 0; v < n; ++v)
      ids[v] = v;
    std::shuffle(ids.begin(), ids.end(), draw.rng);
    ids.resize(draw.integer(2, std::min(4, n)));
    std::sort(ids.begin(), ids.end());
    w.readers = ids;
    inst.weights.push_back(std::move(w));
  }
  double total = 0, largest = 0;
  std::vector<double> standalone(n, 0);
  for (int v = 0; v < n; ++v) {
    total += inst.nodes[v].memory;
    standalone[v] = inst.nodes[v].memory;
  }
  for (const WeightSpec& w : inst.weights) {
    total += w.bytes;
    for (int r : w.readers)
      standalone[r] += w.bytes;
  }
  for (double m : standalone)
    largest = std::max(largest, m);
  inst.devices.memory =
      draw.chance(0.2) ? 1e18
                       : draw.integer(std::max(0, static_cast<int>(largest) - 1), static_cast<int>(total));
  return inst;
}

// Gives CPU cores boundary costs: per source node one CPU cost for its outgoing tensor, sometimes a
// different one per edge. Its own random stream, as above.
Instance withCpuCosts(Instance inst, std::uint32_t seed) {
  Draw draw(seed ^ 0x3c3c3c3cu);
  draw.integral = draw.chance(0.5);
  std::vector<double> per_node(inst.size());
  for (double& c : per_node)
    c = draw.chance(0.2) ? 0 : draw.value(1, 4);
  for (EdgeSpec& e : inst.edges)
    e.cpu_cost = draw.chance(0.15) ? draw.value(0, 4) : per_node[e.from];
  if (draw.chance(0.4)) {  // CPU stages next to each other: a pipeline of cores, with or without accelerators
    inst.devices.cpus = 2;
    inst.devices.accelerators = draw.integer(0, 2);
  } else if (inst.devices.cpus == 0) {
    inst.devices.cpus = draw.integer(0, 1);
  }
  return inst;
}

Instance randomCpuCostInstance(std::uint32_t seed) {
  return withCpuCosts(randomPlainInstance(seed), seed);
}

Instance randomCpuCostTrainingInstance(std::uint32_t seed) {
  return withCpuCosts(withSharedWeights(randomTrainingInstance(seed), seed), seed);
}

Instance randomSharedWeightInstance(std::uint32_t seed) {
  return withSharedWeights(randomPlainInstance(seed), seed);
}

Instance randomSharedWeightTrainingInstance(std::uint32_t seed) {
  return withSharedWeights(randomTrainingInstance(seed), seed);
}

// ---------------------------------------------------------------------------------------------
// The comparison.

struct Coverage {
  int cases = 0;
  int feasible = 0;
  int infeasible = 0;
  int with_cpu = 0;
  int subdivided = 0;  // the subdivide pass added nodes
  int folded = 0;      // fold-leaves removed nodes
  int contracted = 0;  // colocate or scc merged nodes
  int dpl_suboptimal = 0;
  int two_cpus = 0;    // instances with two CPU cores (CPU stages next to each other)
  int replicated = 0;  // the optimum found has a shared weight on two accelerators
  int colocated = 0;   // ... has every shared weight's readers on one device
  std::int64_t placements = 0;
};

PassOptions checkingContext() {
  PassOptions ctx;
  ctx.verify_each = true;
  return ctx;
}

// Checks a placement the pipeline returned, independently of the library where possible.
void checkPlacement(const Instance& inst, const BruteForce& brute, const Problem& problem,
                    const SolveResult& solve) {
  const Placement& p = solve.placement;
  ASSERT_EQ(p.device_of.size(), static_cast<std::size_t>(inst.size()));
  ASSERT_EQ(p.stage_of.size(), static_cast<std::size_t>(inst.size()));
  for (int d : p.device_of) {
    ASSERT_GE(d, 0);
    ASSERT_LT(d, inst.devices.count());
  }
  const std::string where = "placement " + placementString(p.device_of);
  // Unsupported nodes off accelerators, memory, colocation, acyclic quotient (spelled out for the
  // message, then the brute force's own test).
  for (int v = 0; v < inst.size(); ++v) {
    const int d = p.device_of[v];
    if (d < inst.devices.accelerators) {
      EXPECT_FALSE(std::isinf(inst.nodes[v].p_acc))
          << where << ": unsupported node " << v << " on accelerator " << d;
    }
    for (int w = 0; w < v; ++w) {
      if (inst.nodes[v].cls && inst.nodes[v].cls == inst.nodes[w].cls) {
        EXPECT_EQ(p.device_of[v], p.device_of[w])
            << where << ": colocated nodes " << w << " and " << v << " split";
      }
    }
  }
  for (int d = 0; d < inst.devices.accelerators; ++d) {
    EXPECT_LE(acceleratorMemory(inst, p.device_of, d), inst.devices.memory)
        << where << ": accelerator " << d << " over memory";
  }
  EXPECT_TRUE(brute.valid(p.device_of)) << where << " is not valid for the brute force (contiguity?)";
  const double own = brute.load(p.device_of);
  EXPECT_TRUE(near(own, solve.value)) << where << ": claims " << solve.value << ", brute-force load " << own;
  EXPECT_TRUE(near(p.value, solve.value))
      << where << ": placement.value " << p.value << " vs " << solve.value;
  const double library = evaluateThroughput(problem, p.device_of).max_load;
  EXPECT_TRUE(near(library, own)) << where << ": evaluateThroughput " << library << ", brute-force " << own;
  Status verified = verify(problem, p);
  EXPECT_TRUE(verified.isOk()) << where << ": verify: " << verified.message();
  auto violations = splitViolations(problem, p.device_of);
  EXPECT_TRUE(violations.empty()) << where << ": " << (violations.empty() ? "" : violations.front());
}

void checkInstance(const Instance& inst, const std::string& tag, Coverage& coverage) {
  SCOPED_TRACE(tag + "\n" + inst.describe());
  BruteForce brute(inst);
  ASSERT_TRUE(brute.hasFollowers());
  const BruteForce::Result expected = brute.solve();
  const Problem problem = buildProblem(inst);
  ++coverage.cases;
  coverage.placements += expected.enumerated;
  if (inst.devices.cpus > 0) ++coverage.with_cpu;
  if (inst.devices.cpus > 1) ++coverage.two_cpus;

  // The library's evaluator and split checker agree with the brute force on a spread of placements.
  for (const std::vector<int>& dev : expected.samples) {
    const bool ok = brute.valid(dev);
    auto violations = splitViolations(problem, dev);
    EXPECT_EQ(ok, violations.empty())
        << "placement " << placementString(dev) << ": brute force says " << (ok ? "valid" : "invalid")
        << ", splitViolations " << (violations.empty() ? "none" : violations.front());
    if (ok) {
      EXPECT_TRUE(near(brute.load(dev), evaluateThroughput(problem, dev).max_load))
          << "placement " << placementString(dev) << ": brute-force load " << brute.load(dev)
          << ", evaluateThroughput " << evaluateThroughput(problem, dev).max_load;
    }
  }
  if (expected.feasible) {
    EXPECT_TRUE(near(evaluateThroughput(problem, expected.argmin).max_load, expected.best))
        << "brute-force optimum " << placementString(expected.argmin);
  }

  auto outcome = runPipeline(problem, pipelineFor("dp"), checkingContext());
  if (!expected.feasible) {
    ++coverage.infeasible;
    ASSERT_FALSE(outcome.hasValue()) << "no valid placement among " << expected.enumerated
                                     << ", but the DP returned "
                                     << placementString(outcome->solve.placement.device_of)
                                     << " with max-load " << outcome->solve.value;
    EXPECT_EQ(outcome.status().code(), StatusCode::Infeasible) << outcome.status().message();
  } else {
    ++coverage.feasible;
    ASSERT_TRUE(outcome.hasValue()) << "brute force finds max-load " << expected.best << " with "
                                    << placementString(expected.argmin)
                                    << ", the pipeline fails: " << outcome.status().message();
    EXPECT_EQ(outcome->solve.status, SolveStatus::Optimal);
    EXPECT_TRUE(near(outcome->solve.value, expected.best))
        << "DP max-load " << outcome->solve.value << " with "
        << placementString(outcome->solve.placement.device_of) << ", brute force " << expected.best
        << " with " << placementString(expected.argmin);
    EXPECT_TRUE(near(outcome->solve.bound, expected.best))
        << "DP lower bound " << outcome->solve.bound << ", brute force " << expected.best;
    EXPECT_EQ(boost::num_vertices(outcome->problem.graph), static_cast<std::size_t>(inst.size()));
    checkPlacement(inst, brute, problem, outcome->solve);
    if (!inst.weights.empty()) {
      bool any_replicated = false;
      for (const WeightSpec& w : inst.weights) {
        int holders = 0;
        for (int d = 0; d < inst.devices.accelerators; ++d) {
          const auto& dev = outcome->solve.placement.device_of;
          holders += std::any_of(w.readers.begin(), w.readers.end(), [&](int r) { return dev[r] == d; });
        }
        any_replicated = any_replicated || holders > 1;
      }
      ++(any_replicated ? coverage.replicated : coverage.colocated);
    }
    for (const PassRecord& r : outcome->log) {
      if (r.name == "subdivide" && r.nodes_after > r.nodes_before) ++coverage.subdivided;
      if (r.name == "fold-leaves" && r.nodes_after < r.nodes_before) ++coverage.folded;
      if ((r.name == "colocate" || r.name == "scc") && r.nodes_after < r.nodes_before) ++coverage.contracted;
    }
  }

  // DPL is a heuristic: never better than the optimum, always valid, Infeasible when it finds nothing.
  auto dpl = runPipeline(problem, pipelineFor("dpl"), checkingContext());
  if (dpl.hasValue()) {
    ASSERT_TRUE(expected.feasible) << "DPL returned " << placementString(dpl->solve.placement.device_of)
                                   << " but no valid placement exists";
    EXPECT_GE(dpl->solve.value, expected.best * (1 - 1e-9) - 1e-12)
        << "DPL max-load " << dpl->solve.value << " beats the brute-force optimum " << expected.best;
    if (!near(dpl->solve.value, expected.best)) ++coverage.dpl_suboptimal;
    checkPlacement(inst, brute, problem, dpl->solve);
  } else {
    EXPECT_EQ(dpl.status().code(), StatusCode::Infeasible) << "DPL: " << dpl.status().message();
  }
}

constexpr std::uint32_t kPlainSeed = 20200611;
constexpr int kPlainCases = 3000;
constexpr std::uint32_t kTrainingSeed = 77001;
constexpr int kTrainingCases = 1500;
constexpr std::uint32_t kCpuCostSeed = 160501;
constexpr int kCpuCostCases = 1500;
constexpr int kCpuCostTrainingCases = 500;
constexpr std::uint32_t kSharedSeed = 160001;
constexpr int kSharedCases = 2000;
constexpr int kSharedTrainingCases = 600;
constexpr int kMaxFailingCases = 5;  // stop after this many failing cases, to keep the output readable

int failureCount() {
  return ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count();
}

// Runs cases seed, seed+1, ...; returns the seeds of the failing ones.
template <typename Generator>
std::vector<std::uint32_t> runRandomCases(Generator generate, const char* generator_name, const char* kind,
                                          std::uint32_t first_seed, int count, Coverage& coverage) {
  std::vector<std::uint32_t> failing;
  for (int i = 0; i < count && static_cast<int>(failing.size()) < kMaxFailingCases; ++i) {
    const std::uint32_t seed = first_seed + static_cast<std::uint32_t>(i);
    const int before = failureCount();
    checkInstance(generate(seed),
                  std::string(kind) + " case " + std::to_string(i) + " (" + generator_name +
                      "(seed=" + std::to_string(seed) + "))",
                  coverage);
    if (failureCount() != before) failing.push_back(seed);
  }
  std::printf(
      "%s: %d cases (%d feasible, %d infeasible, %d subdivided, %d folded, %d contracted, "
      "%d where DPL is suboptimal, %d/%d optima replicating/colocating shared weights), %lld placements "
      "enumerated, %zu failing\n",
      kind, coverage.cases, coverage.feasible, coverage.infeasible, coverage.subdivided, coverage.folded,
      coverage.contracted, coverage.dpl_suboptimal, coverage.replicated, coverage.colocated,
      static_cast<long long>(coverage.placements), failing.size());
  return failing;
}

std::string seedList(const std::vector<std::uint32_t>& seeds) {
  std::string out;
  for (std::uint32_t s : seeds)
    out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

TEST(DpBruteForce, RandomDagsMatchExhaustiveSearch) {
  Coverage coverage;
  auto failing =
      runRandomCases(randomPlainInstance, "randomPlainInstance", "plain", kPlainSeed, kPlainCases, coverage);
  ASSERT_TRUE(failing.empty()) << "failing seeds (first " << kMaxFailingCases
                               << " at most): " << seedList(failing);
  // The random instances must actually reach the situations they are meant to exercise.
  EXPECT_EQ(coverage.cases, kPlainCases);
  EXPECT_GE(coverage.infeasible, 100);
  EXPECT_GE(coverage.feasible, 1000);
  EXPECT_GE(coverage.with_cpu, 1000);
  EXPECT_GE(coverage.subdivided, 200);
  EXPECT_GE(coverage.folded, 100);
  EXPECT_GE(coverage.contracted, 300);
}

TEST(DpBruteForce, RandomTrainingGraphsMatchExhaustiveSearch) {
  Coverage coverage;
  auto failing = runRandomCases(randomTrainingInstance, "randomTrainingInstance", "training", kTrainingSeed,
                                kTrainingCases, coverage);
  ASSERT_TRUE(failing.empty()) << "failing seeds (first " << kMaxFailingCases
                               << " at most): " << seedList(failing);
  EXPECT_EQ(coverage.cases, kTrainingCases);
  EXPECT_GE(coverage.infeasible, 50);
  EXPECT_GE(coverage.feasible, 500);
  EXPECT_GE(coverage.subdivided, 100);
  EXPECT_GE(coverage.folded, 30);
  EXPECT_GE(coverage.contracted, 100);
}

TEST(DpBruteForce, RandomSharedWeightsMatchExhaustiveSearch) {
  Coverage coverage;
  auto failing = runRandomCases(randomSharedWeightInstance, "randomSharedWeightInstance", "shared weights",
                                kSharedSeed, kSharedCases, coverage);
  ASSERT_TRUE(failing.empty()) << "failing seeds (first " << kMaxFailingCases
                               << " at most): " << seedList(failing);
  EXPECT_EQ(coverage.cases, kSharedCases);
  EXPECT_GE(coverage.infeasible, 50);
  EXPECT_GE(coverage.replicated, 200) << "optima that copy a weight onto two accelerators";
  EXPECT_GE(coverage.colocated, 200) << "optima that keep every weight's readers together";
}

TEST(DpBruteForce, RandomCpuBoundaryCostsMatchExhaustiveSearch) {
  Coverage coverage;
  auto failing = runRandomCases(randomCpuCostInstance, "randomCpuCostInstance", "cpu boundary costs",
                                kCpuCostSeed, kCpuCostCases, coverage);
  ASSERT_TRUE(failing.empty()) << "failing seeds (first " << kMaxFailingCases
                               << " at most): " << seedList(failing);
  EXPECT_EQ(coverage.cases, kCpuCostCases);
  EXPECT_GE(coverage.with_cpu, 800);
  EXPECT_GE(coverage.two_cpus, 400);
  EXPECT_GE(coverage.feasible, 800);
}

TEST(DpBruteForce, RandomTrainingCpuBoundaryCostsMatchExhaustiveSearch) {
  Coverage coverage;
  auto failing =
      runRandomCases(randomCpuCostTrainingInstance, "randomCpuCostTrainingInstance",
                     "training with cpu boundary costs", kCpuCostSeed, kCpuCostTrainingCases, coverage);
  ASSERT_TRUE(failing.empty()) << "failing seeds (first " << kMaxFailingCases
                               << " at most): " << seedList(failing);
  EXPECT_EQ(coverage.cases, kCpuCostTrainingCases);
  EXPECT_GE(coverage.with_cpu, 200);
}

TEST(DpBruteForce, RandomTrainingSharedWeightsMatchExhaustiveSearch) {
  Coverage coverage;
  auto failing = runRandomCases(randomSharedWeightTrainingInstance, "randomSharedWeightTrainingInstance",
                                "training with shared weights", kSharedSeed, kSharedTrainingCases, coverage);
  ASSERT_TRUE(failing.empty()) << "failing seeds (first " << kMaxFailingCases
                               << " at most): " << seedList(failing);
  EXPECT_EQ(coverage.cases, kSharedTrainingCases);
  EXPECT_GE(coverage.infeasible, 20);
  EXPECT_EQ(coverage.replicated, 0) << "training colocates the readers of a shared weight";
  EXPECT_GE(coverage.feasible, 200);
}

// ---------------------------------------------------------------------------------------------
// Hand-computed cases.

Instance chain3() {
  // a -> b -> c on 2 accelerators, each output costs 1 to move.
  //   {a,b,c}:   3+2+4 = 9
  //   {a}|{b,c}: max(3+1, 1+2+4) = 7
  //   {a,b}|{c}: max(3+2+1, 1+4) = 6   <- optimum
  //   {a,c}|{b}: not contiguous (a -> b -> c goes there and back)
  Instance inst;
  inst.devices = {2, 1e18, 0};
  inst.nodes = {{3, 50, 0, {}, false}, {2, 50, 0, {}, false}, {4, 50, 0, {}, false}};
  inst.edges = {{0, 1, 1.0}, {1, 2, 1.0}};
  return inst;
}

TEST(DpBruteForce, ChainOnTwoAcceleratorsByHand) {
  const Instance inst = chain3();
  const BruteForce::Result brute = BruteForce(inst).solve();
  ASSERT_TRUE(brute.feasible);
  EXPECT_DOUBLE_EQ(brute.best, 6.0);
  auto outcome = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_DOUBLE_EQ(outcome->solve.value, 6.0);
  const auto& dev = outcome->solve.placement.device_of;
  EXPECT_EQ(dev[0], dev[1]);
  EXPECT_NE(dev[1], dev[2]);
  Coverage coverage;
  checkInstance(inst, "hand-written chain", coverage);
}

TEST(DpBruteForce, ChainWithMemoryLimitByHand) {
  // Same chain, but an accelerator holds 5 bytes and a, b, c need 3, 3, 1: a and b cannot share, so
  // {a}|{b,c} (max-load 7) is the best split. One accelerator less: infeasible.
  Instance inst = chain3();
  inst.devices.memory = 5;
  inst.nodes[0].memory = 3;
  inst.nodes[1].memory = 3;
  inst.nodes[2].memory = 1;
  auto outcome = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_DOUBLE_EQ(outcome->solve.value, 7.0);
  EXPECT_NE(outcome->solve.placement.device_of[0], outcome->solve.placement.device_of[1]);
  Coverage coverage;
  checkInstance(inst, "hand-written chain with memory", coverage);

  inst.devices.accelerators = 1;
  auto none = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_FALSE(none.hasValue());
  EXPECT_EQ(none.status().code(), StatusCode::Infeasible) << none.status().message();
  checkInstance(inst, "hand-written chain with memory, one accelerator", coverage);
}

TEST(DpBruteForce, UnsupportedMiddleNodeByHand) {
  // a -> b -> c, b unsupported on accelerators, 1 accelerator + 1 CPU, costs 1.
  // a and c cannot both stay on the accelerator around b (cycle acc -> cpu -> acc).
  //   a on acc, {b,c} on cpu: max(1+1, 2+5) = 7   <- optimum
  //   {a,b} on cpu, c on acc: max(10+2, 1+1) = 12
  //   all on cpu: 17
  Instance inst;
  inst.devices = {1, 1e18, 1};
  inst.nodes = {{1, 10, 0, {}, false}, {kInfinity, 2, 0, {}, false}, {1, 5, 0, {}, false}};
  inst.edges = {{0, 1, 1.0}, {1, 2, 1.0}};
  auto outcome = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_DOUBLE_EQ(outcome->solve.value, 7.0);
  EXPECT_EQ(outcome->solve.placement.device_of, (std::vector<int>{0, 1, 1}));
  Coverage coverage;
  checkInstance(inst, "hand-written unsupported middle node", coverage);

  inst.devices.cpus = 0;  // nowhere to put b
  auto none = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_FALSE(none.hasValue());
  EXPECT_EQ(none.status().code(), StatusCode::Infeasible) << none.status().message();
  checkInstance(inst, "hand-written unsupported middle node, no CPU", coverage);
}

TEST(DpBruteForce, FanOutPaysOncePerDeviceByHand) {
  // a -> b, a -> c with one output of cost 5 (paid once by a's device, once by each receiver).
  // p_acc: a = 6, b = 9, c = 9; 3 accelerators.
  //   {a}|{b}|{c}: max(6+5, 5+9, 5+9) = 14   <- optimum (charging a once per edge would make it 16)
  //   {a,b}|{c}:   max(15+5, 5+9) = 20
  //   {a}|{b,c}:   max(11, 5+18) = 23
  //   all on one:  24
  Instance inst;
  inst.devices = {3, 1e18, 0};
  inst.nodes = {{6, 50, 0, {}, false}, {9, 50, 0, {}, false}, {9, 50, 0, {}, false}};
  inst.edges = {{0, 1, 5.0}, {0, 2, 5.0}};
  auto outcome = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_DOUBLE_EQ(outcome->solve.value, 14.0);
  const auto& dev = outcome->solve.placement.device_of;
  const Evaluation eval = evaluateThroughput(outcome->problem, dev);
  EXPECT_DOUBLE_EQ(eval.devices[dev[0]].load, 11.0);  // a's device sends the output once, not twice
  Coverage coverage;
  checkInstance(inst, "hand-written fan-out", coverage);

  // Different costs per edge (a -> b costs 5, a -> c costs 1): two transfers.
  //   {a}|{b}|{c}: max(6+5+1, 5+9, 1+9) = 14;  {a,c}|{b}: max(15+5, 14) = 20;  {a,b}|{c}: max(15+1, 10) = 16
  inst.edges = {{0, 1, 5.0}, {0, 2, 1.0}};
  auto differing = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_TRUE(differing.hasValue()) << differing.status().message();
  EXPECT_DOUBLE_EQ(differing->solve.value, 14.0);
  checkInstance(inst, "hand-written fan-out with differing costs", coverage);
}

TEST(DpBruteForce, TrainingPairByHand) {
  // Forward a -> b, backward b' -> a', a -> a', b -> b', every output costs 1; a/a' and b/b' colocated.
  // p_acc: a = b = 1, a' = b' = 2; 2 accelerators.
  //   together: 6
  //   {a,a'}|{b,b'}: each side computes 3, sends 1 and receives 1: 5   <- optimum
  Instance inst;
  inst.training = true;
  inst.devices = {2, 1e18, 0};
  inst.nodes = {{1, 9, 0, 0, false}, {1, 9, 0, 1, false}, {2, 9, 0, 0, true}, {2, 9, 0, 1, true}};
  inst.edges = {{0, 1, 1.0}, {3, 2, 1.0}, {0, 2, 1.0}, {1, 3, 1.0}};
  auto outcome = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_DOUBLE_EQ(outcome->solve.value, 5.0);
  const auto& dev = outcome->solve.placement.device_of;
  EXPECT_EQ(dev[0], dev[2]);
  EXPECT_EQ(dev[1], dev[3]);
  EXPECT_NE(dev[0], dev[1]);
  Coverage coverage;
  checkInstance(inst, "hand-written training pair", coverage);
}

// fold-leaves on training graphs whose keeper has no backward partner. Forward a -> c, b -> c; a and b
// take no time and have free backward mirrors a', b'; c has no mirror. fold-leaves may fold a and b
// (with a', b') into c, and the contracted problem must still be one the partition pass accepts (at
// most one backward node per class, every backward node with a forward partner). The optimum is c
// alone: 1.
TEST(DpBruteForce, TwoFreeLeavesWithMirrorsIntoMirrorlessNodeByHand) {
  Instance inst;
  inst.training = true;
  inst.devices = {1, 1e18, 0};
  inst.nodes = {
      {0, 0, 0, 0, false}, {0, 0, 0, 1, false}, {1, 1, 0, 2, false}, {0, 0, 0, 0, true}, {0, 0, 0, 1, true}};
  inst.edges = {{0, 2, 1.0}, {1, 2, 1.0}, {0, 3, 1.0}, {1, 4, 1.0}};
  auto outcome = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_DOUBLE_EQ(outcome->solve.value, 1.0);
  Coverage coverage;
  checkInstance(inst, "hand-written free leaves with mirrors", coverage);
}

TEST(DpBruteForce, TwoFreeLeavesWithMirrorsIntoClasslessNodeByHand) {
  Instance inst;  // as above, but c has no colocation class at all
  inst.training = true;
  inst.devices = {1, 1e18, 0};
  inst.nodes = {
      {0, 0, 0, 0, false}, {0, 0, 0, 1, false}, {1, 1, 0, {}, false}, {0, 0, 0, 0, true}, {0, 0, 0, 1, true}};
  inst.edges = {{0, 2, 1.0}, {1, 2, 1.0}, {0, 3, 1.0}, {1, 4, 1.0}};
  Coverage coverage;
  checkInstance(inst, "hand-written free leaves with mirrors, classless keeper", coverage);
}

TEST(DpBruteForce, FreeLeafWithMirrorIntoClasslessNodeByHand) {
  // Forward a -> b, b takes no time and has a free mirror b'; a has neither class nor mirror. Folding
  // b into a must not leave b' without a forward partner. The optimum is a alone: 1.
  Instance inst;
  inst.training = true;
  inst.devices = {1, 1e18, 0};
  inst.nodes = {{1, 1, 0, {}, false}, {0, 0, 0, 0, false}, {0, 0, 0, 0, true}};
  inst.edges = {{0, 1, 1.0}, {1, 2, 1.0}};
  auto outcome = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_DOUBLE_EQ(outcome->solve.value, 1.0);
  Coverage coverage;
  checkInstance(inst, "hand-written free leaf with mirror into a classless node", coverage);
  inst.devices.memory = 0;  // still feasible: nothing needs memory
  checkInstance(inst, "hand-written free leaf with mirror into a classless node, zero memory", coverage);
}

// The tied-embedding pattern: the first and the last node of a chain read one weight. Colocating them
// drags the whole chain onto one device (contiguity); replicating the weight lets the chain split.
// a -> b -> c -> d, p_acc 4 each, transfers 1, weight W of 10 bytes read by a and d, 2 accelerators.
//   replicate: {a,b}|{c,d}: max(4+4+1, 1+4+4) = 9, each accelerator holding W (10 bytes)
//   colocate:  everything on one accelerator: 16
// With 15 bytes per accelerator and b, c holding 3 bytes each, both accelerators can hold W with
// their halves (13); with 12 bytes only one can, and the chain must stay together (16, 16 bytes
// needed: infeasible with 12, so at 16 bytes it is the only split).
TEST(DpBruteForce, TiedWeightIsReplicatedAcrossTheChainByHand) {
  Instance inst;
  inst.devices = {2, 1e18, 0};
  inst.nodes = {{4, 50, 0, {}, false}, {4, 50, 3, {}, false}, {4, 50, 3, {}, false}, {4, 50, 0, {}, false}};
  inst.edges = {{0, 1, 1.0}, {1, 2, 1.0}, {2, 3, 1.0}};
  inst.weights = {{10, {0, 3}}};
  auto outcome = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_TRUE(outcome.hasValue()) << outcome.status().message();
  EXPECT_DOUBLE_EQ(outcome->solve.value, 9.0);
  const auto& dev = outcome->solve.placement.device_of;
  EXPECT_EQ(dev, (std::vector<int>{0, 0, 1, 1}));
  const Evaluation eval = evaluateThroughput(outcome->problem, dev);
  EXPECT_DOUBLE_EQ(eval.devices[0].memory, 13.0) << "W and b";
  EXPECT_DOUBLE_EQ(eval.devices[1].memory, 13.0) << "a copy of W and c";
  Coverage coverage;
  checkInstance(inst, "hand-written tied weight", coverage);

  Problem colocated = buildProblem(inst);
  ASSERT_TRUE(applySharedWeightMode(colocated, SharedWeightMode::Colocate).isOk());
  auto together = runPipeline(colocated, pipelineFor("dp"));
  ASSERT_TRUE(together.hasValue()) << together.status().message();
  EXPECT_DOUBLE_EQ(together->solve.value, 16.0);

  inst.devices.memory = 15;  // both halves fit with a copy each
  checkInstance(inst, "hand-written tied weight, 15 bytes", coverage);
  auto fits = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_TRUE(fits.hasValue());
  EXPECT_DOUBLE_EQ(fits->solve.value, 9.0);

  inst.devices.memory = 12;  // a half with W needs 13: no split, and the whole chain needs 16
  checkInstance(inst, "hand-written tied weight, 12 bytes", coverage);
  auto none = runPipeline(buildProblem(inst), pipelineFor("dp"));
  ASSERT_FALSE(none.hasValue());
  EXPECT_EQ(none.status().code(), StatusCode::Infeasible) << none.status().message();

  inst.devices = {2, 16, 1};  // a CPU takes b and c; W is then held once, by the accelerator of a and d
  checkInstance(inst, "hand-written tied weight, 16 bytes and a CPU", coverage);
}

}  // namespace dp_bruteforce_test
}  // namespace placer::testing
