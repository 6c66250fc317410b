#include "solvers/bounds/latency_path_bound.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <utility>

#include <boost/graph/topological_sort.hpp>

#include "solvers/bounds/min_cut.h"

namespace placer {

namespace {

// Transfer of u's output to v per edge: the cheapest net from u that v reads (a piece transfers
// each net once, so one edge's net is what the path itself must pay).
using Transfers = std::map<std::pair<Vertex, Vertex>, double>;

Transfers edgeTransfers(const Problem& problem) {
  Transfers out;
  for (const Net& net : problem.nets) {
    for (Vertex t : net.sinks) {
      auto [it, inserted] = out.try_emplace({net.source, t}, net.cost);
      if (!inserted) it->second = std::min(it->second, net.cost);
    }
  }
  return out;
}

double transferOf(const Transfers& transfers, Vertex u, Vertex v) {
  auto it = transfers.find({u, v});
  return it == transfers.end() ? 0.0 : it->second;
}

// The heaviest path by node and edge weights, in a topological order of the acyclic graph.
std::vector<Vertex> heaviestPath(const OpGraph& g, const std::vector<Vertex>& order,
                                 const std::function<double(Vertex)>& node_weight,
                                 const std::function<double(Vertex, Vertex)>& edge_weight) {
  const std::size_t n = boost::num_vertices(g);
  std::vector<double> best(n, 0);
  std::vector<Vertex> previous(n, static_cast<Vertex>(n));
  for (Vertex v : order) {
    double from = 0;
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
      if (g[*e].artificial) continue;
      const Vertex u = boost::source(*e, g);
      const double through = best[u] + edge_weight(u, v);
      if (through > from) {
        from = through;
        previous[v] = u;
      }
    }
    best[v] = from + node_weight(v);
  }
  Vertex last = order.front();
  for (Vertex v : order) {
    if (best[v] > best[last]) last = v;
  }
  std::vector<Vertex> path;
  for (Vertex v = last; v != static_cast<Vertex>(n); v = previous[v])
    path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;
}


// What a piece holding the run path[i..j-1] pays beyond its own nodes (solvers/README.md, "Side
// branches"). The nodes between the run's ends (B) are in the piece; the ancestors of the path node
// before the run and the descendants of the one after it are not. Every other ancestor of B (the
// in-side S: a parallel branch the run starts beside) is in the piece, computing, or outside, and
// then each net of it that the piece reads is transferred in; every other descendant of B (the
// out-side D) likewise, and each net of the piece it reads is transferred out. Which choice is
// cheapest is a minimum cut, one for each side; the nets they count are disjoint, as are S and D.
// A side node whose own memory does not fit beside B's cannot be in the piece.
class PieceSides {
 public:
  PieceSides(const Problem& problem, const std::vector<bool>& can_accelerator, std::size_t m,
             const std::vector<std::size_t>& owner, const std::vector<std::size_t>& first_reached,
             const std::vector<std::vector<Vertex>>& owned, const std::vector<std::vector<std::size_t>>& nets_from,
             const std::vector<std::vector<std::size_t>>& nets_into)
      : problem_(problem),
        can_accelerator_(can_accelerator),
        m_(m),
        owner_(owner),
        first_reached_(first_reached),
        owned_(owned),
        nets_from_(nets_from),
        nets_into_(nets_into),
        by_first_(m),
        index_(boost::num_vertices(problem.graph), 0),
        stamp_(boost::num_vertices(problem.graph), 0),
        net_index_(problem.nets.size(), 0),
        net_stamp_(problem.nets.size(), 0) {
    for (Vertex v = 0; v < boost::num_vertices(problem.graph); ++v) {
      if (first_reached[v] < m) by_first_[first_reached[v]].push_back(v);
    }
    // The prices of memory tried: powers of two around the median transfer cost per byte of the
    // nets (what keeping a producer out of the piece saves against what taking it in costs).
    lambdas_ = {0};
    std::vector<double> ratios;
    for (const Net& net : problem.nets) {
      const double bytes = problem.graph[net.source].memory;
      if (net.cost > 0 && bytes > 0) ratios.push_back(net.cost / bytes);
    }
    if (!ratios.empty() && std::isfinite(problem.devices.memory)) {
      std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
      const double median = ratios[ratios.size() / 2];
      for (int t = -3; t <= 3; ++t)
        lambdas_.push_back(std::ldexp(median, t));
    }
  }

  // Whether more sides may be priced: the nodes listed and the arcs of all networks so far stay under
  // a fixed allowance, so that the bound is the same on every run (past it, runs are priced without
  // their sides).
  bool affordable() const { return work_ < kWorkAllowance; }

  // Transfers in + computation of B + transfers out, each side at its cheapest.
  double cost(std::size_t i, std::size_t j) {
    ++round_;
    i_ = i;
    j_ = j;
    double compute = 0;
    memory_ = 0;
    std::vector<Vertex> between, in_side, out_side;
    for (std::size_t a = i; a < j; ++a) {
      for (Vertex v : owned_[a]) {
        if (first_reached_[v] < j) {
          between.push_back(v);
          compute += problem_.graph[v].p_acc;
          memory_ += problem_.graph[v].memory;
        } else {
          out_side.push_back(v);
        }
      }
      for (Vertex v : by_first_[a]) {
        if (!reachedFromRun(v)) in_side.push_back(v);
      }
    }
    work_ += between.size() + in_side.size() + out_side.size();
    // The piece's memory holds B and the side nodes it takes: for any price λ >= 0 of a byte,
    // in_λ + out_λ - λ (M - memory(B)) is at most the sides' cost, where in_λ and out_λ charge
    // each side node in the piece λ times its memory as well (taken nodes that fit add at most
    // λ (M - memory(B)) in all). λ = 0 is the plain cut; the others only where the sides could
    // overflow the accelerator.
    double side_memory = 0;
    for (const auto* list : {&in_side, &out_side}) {
      for (Vertex v : *list)
        side_memory += problem_.graph[v].memory;
    }
    const double room = problem_.devices.memory - memory_;
    double sides = 0;
    for (double lambda : lambdas_) {
      if (lambda > 0 && side_memory <= room) break;
      lambda_ = lambda;
      sides = std::max(sides, inCost(between, in_side) + outCost(between, out_side) - lambda * room);
    }
    lambda_ = 0;
    return compute + sides;
  }

 private:
  static constexpr std::size_t kWorkAllowance = 50'000'000;

  bool reachedFromRun(Vertex v) const { return owner_[v] < m_ && owner_[v] >= i_; }
  bool inB(Vertex v) const { return reachedFromRun(v) && first_reached_[v] < j_; }
  bool inS(Vertex v) const { return first_reached_[v] >= i_ && first_reached_[v] < j_ && !reachedFromRun(v); }
  bool inD(Vertex v) const { return reachedFromRun(v) && owner_[v] < j_ && first_reached_[v] >= j_; }
  double computeCost(Vertex v) const {
    const OpNode& node = problem_.graph[v];
    const bool fits = can_accelerator_[v] && memory_ + node.memory <= problem_.devices.memory;
    return fits ? node.p_acc + lambda_ * node.memory : MinCut::kUnbounded;
  }
  // The network vertex of node v (one per round).
  std::size_t vertexOf(Vertex v) {
    if (stamp_[v] != round_) {
      stamp_[v] = round_;
      index_[v] = next_vertex_++;
    }
    return index_[v];
  }
  std::size_t vertexOfNet(std::size_t k) {
    if (net_stamp_[k] != round_) {
      net_stamp_[k] = round_;
      net_index_[k] = next_vertex_++;
    }
    return net_index_[k];
  }

  // The nets B and S read. Source side: in the piece. A net is needed (source side) once a reader is
  // in it; a needed net whose producer is outside costs its transfer.
  double inCost(const std::vector<Vertex>& between, const std::vector<Vertex>& in_side) {
    std::vector<std::size_t> nets;
    ++round_;
    for (const auto* list : {&between, &in_side}) {
      for (Vertex v : *list) {
        for (std::size_t k : nets_into_[v]) {
          if (net_stamp_[k] != round_) {
            net_stamp_[k] = round_;
            nets.push_back(k);
          }
        }
      }
    }
    ++round_;
    next_vertex_ = 2;
    struct Arc {
      std::size_t u, v;
      double capacity;
    };
    std::vector<Arc> arcs;
    double fixed = 0;
    for (std::size_t k : nets) {
      const Net& net = problem_.nets[k];
      if (inB(net.source)) continue;  // produced inside
      bool read_by_b = false;
      for (Vertex t : net.sinks)
        read_by_b = read_by_b || inB(t);
      const bool produced_outside = !inS(net.source);
      if (read_by_b && produced_outside) {
        fixed += net.cost;
        continue;
      }
      const std::size_t y = vertexOfNet(k);
      if (read_by_b) arcs.push_back({MinCut::kSource, y, MinCut::kUnbounded});
      for (Vertex t : net.sinks) {
        if (inS(t)) arcs.push_back({vertexOf(t), y, MinCut::kUnbounded});
      }
      arcs.push_back({y, produced_outside ? MinCut::kSink : vertexOf(net.source), net.cost});
    }
    // A piece is convex: with a node of S it holds that node's successors in S (they lie between it
    // and B).
    const OpGraph& g = problem_.graph;
    for (Vertex v : in_side) {
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
        if (!g[*e].artificial && inS(boost::target(*e, g)))
          arcs.push_back({vertexOf(v), vertexOf(boost::target(*e, g)), MinCut::kUnbounded});
      }
    }
    for (Vertex v : in_side) {
      if (stamp_[v] == round_) arcs.push_back({index_[v], MinCut::kSink, computeCost(v)});
    }
    return fixed + solve(arcs);
  }

  // The nets B and D produce. A net stays inside (source side) only when every reader is in the
  // piece; one produced in the piece that does not costs its transfer.
  double outCost(const std::vector<Vertex>& between, const std::vector<Vertex>& out_side) {
    ++round_;
    next_vertex_ = 2;
    struct Arc {
      std::size_t u, v;
      double capacity;
    };
    std::vector<Arc> arcs;
    double fixed = 0;
    for (const auto* list : {&between, &out_side}) {
      const bool produced_in_b = list == &between;
      for (Vertex v : *list) {
        for (std::size_t k : nets_from_[v]) {
          const Net& net = problem_.nets[k];
          bool read_outside = false, read_by_d = false;
          for (Vertex t : net.sinks) {
            if (inD(t)) {
              read_by_d = true;
            } else if (!inB(t)) {
              read_outside = true;
            }
          }
          if (read_outside) {
            if (produced_in_b) {
              fixed += net.cost;
            } else {
              arcs.push_back({vertexOf(v), MinCut::kSink, net.cost});
            }
            continue;
          }
          if (!read_by_d) continue;  // every reader in B
          const std::size_t w = vertexOfNet(k);
          for (Vertex t : net.sinks) {
            if (inD(t)) arcs.push_back({w, vertexOf(t), MinCut::kUnbounded});
          }
          arcs.push_back({produced_in_b ? MinCut::kSource : vertexOf(v), w, net.cost});
        }
      }
    }
    // Convexity again: with a node of D the piece holds that node's predecessors in D.
    const OpGraph& g = problem_.graph;
    for (Vertex v : out_side) {
      for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
        if (!g[*e].artificial && inD(boost::source(*e, g)))
          arcs.push_back({vertexOf(v), vertexOf(boost::source(*e, g)), MinCut::kUnbounded});
      }
    }
    for (Vertex v : out_side) {
      if (stamp_[v] == round_) arcs.push_back({index_[v], MinCut::kSink, computeCost(v)});
    }
    return fixed + solve(arcs);
  }

  template <typename Arcs>
  double solve(const Arcs& arcs) {
    if (arcs.empty()) return 0;
    cut_.reset(next_vertex_ - 2);
    for (const auto& a : arcs)
      cut_.arc(a.u, a.v, a.capacity);
    work_ += cut_.arcs();
    return cut_.solve();
  }

  const Problem& problem_;
  const std::vector<bool>& can_accelerator_;
  std::size_t m_;
  const std::vector<std::size_t>& owner_;
  const std::vector<std::size_t>& first_reached_;
  const std::vector<std::vector<Vertex>>& owned_;
  const std::vector<std::vector<std::size_t>>& nets_from_;
  const std::vector<std::vector<std::size_t>>& nets_into_;
  std::vector<std::vector<Vertex>> by_first_;  // the nodes whose first reached path node is path[a]
  std::vector<std::size_t> index_, stamp_, net_index_, net_stamp_;
  std::size_t round_ = 0, next_vertex_ = 2, i_ = 0, j_ = 0, work_ = 0;
  double memory_ = 0;  // B's own memory: a side node joins the piece only if it fits beside it
  double lambda_ = 0;  // the price of a byte of a side node in the piece
  std::vector<double> lambdas_;  // 0 first, then around a typical transfer cost per byte
  MinCut cut_;
};

}  // namespace

double pathLatencyBound(const Problem& problem, const std::vector<Vertex>& path,
                        const std::vector<bool>& can_accelerator, const std::vector<bool>& can_cpu,
                        const Budget& budget) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const std::size_t m = path.size();
  if (m == 0) return 0;
  // The nets each node produces and reads.
  std::vector<std::vector<std::size_t>> nets_from(n), nets_into(n);
  for (std::size_t k = 0; k < problem.nets.size(); ++k) {
    nets_from[problem.nets[k].source].push_back(k);
    for (Vertex t : problem.nets[k].sinks)
      nets_into[t].push_back(k);
  }
  // A piece is convex: with path[i] and path[j] it holds every node between them. owned[i]: the
  // nodes path[i] reaches and path[i + 1] does not (each node is in at most one list), so the nodes
  // between path[i] and path[j] are those of owned[i..j] that reach path[j].
  // owner[v]: the list v is in (m: none), so path[i] reaches v exactly when owner[v] >= i.
  std::vector<std::vector<Vertex>> owned(m);
  std::vector<std::size_t> owner(n, m);
  std::vector<bool> reached(n, false);
  for (std::size_t i = m; i-- > 0;) {
    std::vector<Vertex> stack = {path[i]};
    reached[path[i]] = true;
    while (!stack.empty()) {
      const Vertex u = stack.back();
      stack.pop_back();
      owned[i].push_back(u);
      owner[u] = i;
      for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) {
        const Vertex w = boost::target(*e, g);
        if (g[*e].artificial || reached[w]) continue;
        reached[w] = true;
        stack.push_back(w);
      }
    }
  }
  // Each list from the last node to the first in a topological order, so that whether a node
  // reaches the run's end is known from its successors, which come before it (in its list or in a
  // later path node's).
  std::vector<std::size_t> position(n);
  {
    std::vector<Vertex> order;
    boost::topological_sort(g, std::back_inserter(order));  // successors first
    for (std::size_t k = 0; k < order.size(); ++k)
      position[order[k]] = k;
  }
  for (auto& list : owned)
    std::sort(list.begin(), list.end(), [&](Vertex a, Vertex b) { return position[a] < position[b]; });
  // first_reached[v]: the first path node v reaches (m: none), so v reaches path[i] exactly when
  // first_reached[v] <= i. A run's piece holds neither an ancestor of the path node before the run
  // nor a descendant of the one after it (it is convex and holds the run's ends): the nets from the
  // former it reads are transferred in, those to the latter out. nets_by_first[a]: the nets whose
  // producer first reaches path[a].
  std::vector<std::size_t> first_reached(n, m);
  {
    std::vector<Vertex> by_position(n);
    for (Vertex v = 0; v < n; ++v)
      by_position[position[v]] = v;
    for (std::size_t i = 0; i < m; ++i)
      first_reached[path[i]] = i;
    for (Vertex v : by_position) {  // successors first
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
        if (!g[*e].artificial) first_reached[v] = std::min(first_reached[v], first_reached[boost::target(*e, g)]);
      }
    }
  }
  std::vector<std::vector<std::size_t>> nets_by_first(m);
  for (std::size_t k = 0; k < problem.nets.size(); ++k) {
    if (first_reached[problem.nets[k].source] < m) nets_by_first[first_reached[problem.nets[k].source]].push_back(k);
  }
  PieceSides sides(problem, can_accelerator, m, owner, first_reached, owned, nets_from, nets_into);
  // best[j]: the cheapest cut of the first j nodes into runs.
  std::vector<double> best(m + 1, kInfinity);
  best[0] = 0;
  std::vector<std::size_t> reaches_end(n, 0);                   // == j: reaches path[j - 1]
  std::vector<std::size_t> counted_in(problem.nets.size(), 0);  // == j: counted for runs ending at j
  for (std::size_t j = 1; j <= m; ++j) {
    if (budget.exhausted()) return 0;  // a part of the cuts proves nothing
    // Runs path[i..j-1], grown leftwards from j - 1: a CPU run computes its path nodes; an
    // accelerator run computes every node between its ends, transfers in each net from an ancestor
    // of path[i - 1] that one of them reads and out each net of theirs that a descendant of path[j]
    // reads.
    double cpu = 0, acc = 0, memory = 0, in = 0, out = 0;
    bool cpu_ok = true, acc_ok = true;
    std::vector<std::pair<double, std::size_t>> accelerator_runs;  // (best[i] + cost without sides, i)
    for (std::size_t i = j; i-- > 0;) {
      const Vertex v = path[i];
      cpu_ok = cpu_ok && can_cpu[v];
      cpu += g[v].p_cpu;
      // The producers that first reach path[i] no longer reach path[i - 1]: their nets may be inside.
      for (std::size_t k : nets_by_first[i]) {
        if (counted_in[k] == j) {
          counted_in[k] = 0;
          in -= problem.nets[k].cost;
        }
      }
      for (Vertex w : owned[i]) {
        if (!acc_ok) break;
        bool reaches = w == path[j - 1];
        for (auto [e, end] = boost::out_edges(w, g); !reaches && e != end; ++e)
          reaches = !g[*e].artificial && reaches_end[boost::target(*e, g)] == j;
        if (!reaches) continue;
        reaches_end[w] = j;
        acc_ok = can_accelerator[w];
        acc += g[w].p_acc;
        memory += g[w].memory;
        for (std::size_t k : nets_into[w]) {
          if (first_reached[problem.nets[k].source] < i && counted_in[k] != j) {
            counted_in[k] = j;
            in += problem.nets[k].cost;
          }
        }
        for (std::size_t k : nets_from[w]) {
          for (Vertex t : problem.nets[k].sinks) {
            if (owner[t] >= j && owner[t] < m) {
              out += problem.nets[k].cost;
              break;
            }
          }
        }
      }
      acc_ok = acc_ok && memory <= problem.devices.memory;
      if (!cpu_ok && !acc_ok) break;
      if (!std::isfinite(best[i])) continue;
      if (cpu_ok) best[j] = std::min(best[j], best[i] + cpu);
      if (acc_ok) accelerator_runs.emplace_back(best[i] + std::max(0.0, in) + acc + out, i);
    }
    // The sides only add: price the accelerator runs cheapest first, each with its sides, until the
    // next one's price without them is no better than the best so far.
    std::sort(accelerator_runs.begin(), accelerator_runs.end());
    for (const auto& [price, i] : accelerator_runs) {
      if (price >= best[j]) break;
      const double with_sides = sides.affordable() ? best[i] + sides.cost(i, j) : price;
      best[j] = std::min(best[j], std::max(price, with_sides));
    }
  }
  return std::isfinite(best[m]) ? best[m] : 0.0;
}

double latencyPathBound(const Problem& problem, const std::vector<bool>& can_accelerator,
                        const std::vector<bool>& can_cpu, const Budget& budget) {
  const OpGraph& g = problem.graph;
  if (boost::num_vertices(g) == 0 || !findCycle(g, false).empty()) return 0;
  std::vector<Vertex> order;
  boost::topological_sort(g, std::back_inserter(order));
  std::reverse(order.begin(), order.end());
  const Transfers transfers = edgeTransfers(problem);
  auto cheapest = [&](Vertex v) {
    return std::min(can_accelerator[v] ? g[v].p_acc : kInfinity, can_cpu[v] ? g[v].p_cpu : kInfinity);
  };
  auto finite = [](double x) { return std::isfinite(x) ? x : 0.0; };
  auto none = [](Vertex, Vertex) { return 0.0; };
  const std::function<double(Vertex)> node_weights[] = {
      [&](Vertex v) { return finite(cheapest(v)); },
      [&](Vertex v) { return finite(g[v].p_acc); },
      [&](Vertex v) { return finite(g[v].p_cpu); },
      [&](Vertex v) { return g[v].memory; },
  };
  double bound = 0;
  for (std::size_t w = 0; w < std::size(node_weights); ++w) {
    auto edges = [&](Vertex u, Vertex v) { return transferOf(transfers, u, v); };
    const std::vector<Vertex> path =
        heaviestPath(g, order, node_weights[w], w == 1 ? std::function<double(Vertex, Vertex)>(edges) : none);
    bound = std::max(bound, pathLatencyBound(problem, path, can_accelerator, can_cpu, budget));
  }
  return bound;
}

}  // namespace placer
