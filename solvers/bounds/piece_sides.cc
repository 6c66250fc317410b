#include "solvers/bounds/piece_sides.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace placer {

PieceSides::PieceSides(const Problem& problem, const std::vector<bool>& can_accelerator, std::size_t m,
                       const std::vector<std::size_t>& owner, const std::vector<std::size_t>& first_reached,
                       const std::vector<std::vector<Vertex>>& owned,
                       const std::vector<std::vector<std::size_t>>& nets_from,
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

double PieceSides::cost(std::size_t i, std::size_t j) {
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
  Network in = inNetwork(between, in_side);
  Network out = outNetwork(between, out_side);
  double sides = 0;
  for (double lambda : lambdas_) {
    if (lambda > 0 && side_memory <= room) break;
    lambda_ = lambda;
    sides = std::max(sides, solve(in) + solve(out) - lambda * room);
  }
  lambda_ = 0;
  return compute + sides;
}

double PieceSides::computeCost(Vertex v) const {
  const OpNode& node = problem_.graph[v];
  const bool fits = can_accelerator_[v] && memory_ + node.memory <= problem_.devices.memory;
  return fits ? node.p_acc + lambda_ * node.memory : MinCut::kUnbounded;
}

// The network vertex of node v (one per round).
std::size_t PieceSides::vertexOf(Vertex v) {
  if (stamp_[v] != round_) {
    stamp_[v] = round_;
    index_[v] = next_vertex_++;
  }
  return index_[v];
}

std::size_t PieceSides::vertexOfNet(std::size_t k) {
  if (net_stamp_[k] != round_) {
    net_stamp_[k] = round_;
    net_index_[k] = next_vertex_++;
  }
  return net_index_[k];
}

// The nets B and S read. Source side: in the piece. A net is needed (source side) once a reader is
// in it; a needed net whose producer is outside costs its transfer.
PieceSides::Network PieceSides::inNetwork(const std::vector<Vertex>& between, const std::vector<Vertex>& in_side) {
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
  Network network;
  for (std::size_t k : nets) {
    const Net& net = problem_.nets[k];
    if (inB(net.source)) continue;  // produced inside
    bool read_by_b = false;
    for (Vertex t : net.sinks)
      read_by_b = read_by_b || inB(t);
    const bool produced_outside = !inS(net.source);
    if (read_by_b && produced_outside) {
      network.fixed += net.cost;
      continue;
    }
    const std::size_t y = vertexOfNet(k);
    if (read_by_b) network.arcs.push_back({MinCut::kSource, y, MinCut::kUnbounded});
    for (Vertex t : net.sinks) {
      if (inS(t)) network.arcs.push_back({vertexOf(t), y, MinCut::kUnbounded});
    }
    network.arcs.push_back({y, produced_outside ? MinCut::kSink : vertexOf(net.source), net.cost});
  }
  addSideNodes(network, in_side, Side::In);
  return network;
}

// The nets B and D produce. A net stays inside (source side) only when every reader is in the
// piece; one produced in the piece that does not costs its transfer.
PieceSides::Network PieceSides::outNetwork(const std::vector<Vertex>& between, const std::vector<Vertex>& out_side) {
  ++round_;
  next_vertex_ = 2;
  Network network;
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
            network.fixed += net.cost;
          } else {
            network.arcs.push_back({vertexOf(v), MinCut::kSink, net.cost});
          }
          continue;
        }
        if (!read_by_d) continue;  // every reader in B
        const std::size_t w = vertexOfNet(k);
        for (Vertex t : net.sinks) {
          if (inD(t)) network.arcs.push_back({w, vertexOf(t), MinCut::kUnbounded});
        }
        network.arcs.push_back({produced_in_b ? MinCut::kSource : vertexOf(v), w, net.cost});
      }
    }
  }
  addSideNodes(network, out_side, Side::Out);
  return network;
}

// The side's nodes in the network: a piece is convex, so with a side node it holds that node's
// neighbours on the side toward B (its successors in S, its predecessors in D: they lie between it
// and B); and a side node in the piece computes there, at the price computeCost sets when solved.
void PieceSides::addSideNodes(Network& network, const std::vector<Vertex>& side, Side which) {
  const OpGraph& g = problem_.graph;
  auto link = [&](Vertex v, auto edges, auto other_end, auto on_side) {
    for (auto [e, end] = edges; e != end; ++e) {
      const Vertex w = other_end(*e, g);
      if (!g[*e].artificial && on_side(w)) network.arcs.push_back({vertexOf(v), vertexOf(w), MinCut::kUnbounded});
    }
  };
  for (Vertex v : side) {
    if (which == Side::In) {
      link(v, boost::out_edges(v, g), [](auto e, const OpGraph& graph) { return boost::target(e, graph); },
           [&](Vertex w) { return inS(w); });
    } else {
      link(v, boost::in_edges(v, g), [](auto e, const OpGraph& graph) { return boost::source(e, graph); },
           [&](Vertex w) { return inD(w); });
    }
  }
  for (Vertex v : side) {
    if (stamp_[v] != round_) continue;  // reads and feeds nothing the cut weighs
    network.computing.emplace_back(network.arcs.size(), v);
    network.arcs.push_back({index_[v], MinCut::kSink, 0});
  }
  network.vertices = next_vertex_ - 2;
}

double PieceSides::solve(Network& network) {
  for (const auto& [arc, v] : network.computing)
    network.arcs[arc].capacity = computeCost(v);
  if (network.arcs.empty()) return network.fixed;
  cut_.reset(network.vertices);
  for (const auto& a : network.arcs)
    cut_.arc(a.u, a.v, a.capacity);
  work_ += cut_.arcs();
  return network.fixed + cut_.solve();
}

}  // namespace placer
