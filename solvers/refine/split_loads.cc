#include "solvers/refine/split_loads.h"

#include <algorithm>
#include <cmath>

#include "core/evaluate.h"

namespace placer {

SplitLoads::SplitLoads(const Problem& problem, std::vector<int> device_of)
    : problem_(problem), devices_(problem.devices.count()), device_of_(std::move(device_of)) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const std::size_t d = static_cast<std::size_t>(devices_);
  compute_.assign(2 * d, 0);
  in_.assign(2 * d, 0);
  out_.assign(2 * d, 0);
  memory_.assign(d, 0);
  produced_.resize(n);
  consumed_.resize(n);
  sinks_on_.assign(problem.nets.size() * d, 0);
  for (std::size_t i = 0; i < problem.nets.size(); ++i) {
    const Net& net = problem.nets[i];
    produced_[net.source].push_back(i);
    for (Vertex s : net.sinks) {
      consumed_[s].push_back(i);
      ++sinks_on_[i * d + static_cast<std::size_t>(device_of_[s])];
    }
  }
  weights_of_ = weightsOfVertices(problem);
  readers_on_.assign(problem.weights.size() * d, 0);
  forward_edges_.assign(d * d, 0);
  backward_edges_.assign(d * d, 0);
  for (Vertex v = 0; v < n; ++v)
    addNode(v, device_of_[v], +1);
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const Vertex u = boost::source(*it, g), w = boost::target(*it, g);
    const int a = device_of_[u], b = device_of_[w];
    if (a == b || g[u].backward != g[w].backward) continue;
    (g[u].backward ? backward_edges_ : forward_edges_)[static_cast<std::size_t>(a * devices_ + b)] += 1;
  }
  for (std::size_t i = 0; i < problem.nets.size(); ++i)
    payNet(i, +1);
}

void SplitLoads::addNode(Vertex v, int d, int sign) {
  const OpNode& node = problem_.graph[v];
  const std::size_t part = node.backward ? 1 : 0;
  compute_[part * static_cast<std::size_t>(devices_) + static_cast<std::size_t>(d)] +=
      sign * deviceTime(node, problem_.devices, d);
  memory_[d] += sign * node.memory;
  for (int w : weights_of_[v]) {
    int& readers = readers_on_[static_cast<std::size_t>(w * devices_ + d)];
    if (sign > 0 && readers++ == 0) memory_[d] += problem_.weights[w].bytes;
    if (sign < 0 && --readers == 0) memory_[d] -= problem_.weights[w].bytes;
  }
}

void SplitLoads::payNet(std::size_t i, int sign) {
  const Net& net = problem_.nets[i];
  const DeviceSet& devices = problem_.devices;
  const int from = device_of_[net.source];
  const std::size_t part = problem_.graph[net.source].backward ? 1 : 0;
  const std::size_t offset = part * static_cast<std::size_t>(devices_);
  const int* on = &sinks_on_[i * static_cast<std::size_t>(devices_)];
  bool sent = false;
  for (int d = 0; d < devices_; ++d) {
    if (d == from || on[d] == 0) continue;
    sent = true;
    in_[offset + static_cast<std::size_t>(d)] += sign * (devices.isAccelerator(d) ? net.cost : net.cpu_cost);
  }
  if (sent) {
    out_[offset + static_cast<std::size_t>(from)] +=
        sign * (devices.isAccelerator(from) ? net.cost : net.cpu_cost);
  }
}

void SplitLoads::countEdges(Vertex v, int sign) {
  const OpGraph& g = problem_.graph;
  auto count = [&](Vertex u, Vertex w) {
    const int a = device_of_[u], b = device_of_[w];
    if (a == b || g[u].backward != g[w].backward) return;
    (g[u].backward ? backward_edges_ : forward_edges_)[static_cast<std::size_t>(a * devices_ + b)] += sign;
  };
  for (auto [it, end] = boost::out_edges(v, g); it != end; ++it)
    count(v, boost::target(*it, g));
  for (auto [it, end] = boost::in_edges(v, g); it != end; ++it)
    count(boost::source(*it, g), v);
}

void SplitLoads::move(Vertex v, int to) {
  const int from = device_of_[v];
  if (from == to) return;
  for (std::size_t i : produced_[v])
    payNet(i, -1);
  for (std::size_t i : consumed_[v])
    payNet(i, -1);
  addNode(v, from, -1);
  countEdges(v, -1);
  for (std::size_t i : consumed_[v]) {
    --sinks_on_[i * static_cast<std::size_t>(devices_) + static_cast<std::size_t>(from)];
    ++sinks_on_[i * static_cast<std::size_t>(devices_) + static_cast<std::size_t>(to)];
  }
  device_of_[v] = to;
  addNode(v, to, +1);
  countEdges(v, +1);
  for (std::size_t i : produced_[v])
    payNet(i, +1);
  for (std::size_t i : consumed_[v])
    payNet(i, +1);
}

double SplitLoads::partLoad(int part, int d) const {
  const std::size_t i = static_cast<std::size_t>(part * devices_ + d);
  return problem_.devices.isAccelerator(d)
             ? acceleratorLoad(problem_.objective.overlap, compute_[i], in_[i], out_[i])
             : compute_[i] + in_[i] + out_[i];
}

double SplitLoads::load(int d) const {
  const std::size_t f = static_cast<std::size_t>(d), b = f + static_cast<std::size_t>(devices_);
  const double compute = compute_[f] + compute_[b], in = in_[f] + in_[b], out = out_[f] + out_[b];
  return problem_.devices.isAccelerator(d) ? acceleratorLoad(problem_.objective.overlap, compute, in, out)
                                           : compute + in + out;
}

bool SplitLoads::memoryFits(int d) const {
  const DeviceSet& devices = problem_.devices;
  return !devices.isAccelerator(d) || memory_[d] <= devices.memoryOf(d) * (1 + 1e-12);
}

double SplitLoads::objective(bool gpipe, double* spread) const {
  double squares = 0;
  double value = 0;
  if (!gpipe) {
    for (int d = 0; d < devices_; ++d) {
      const double l = load(d);
      value = std::max(value, l);
      squares += l * l;
    }
  } else {
    for (int part = 0; part < 2; ++part) {
      double worst = 0;
      for (int d = 0; d < devices_; ++d) {
        const double l = partLoad(part, d);
        worst = std::max(worst, l);
        squares += l * l;
      }
      value += worst;
    }
  }
  if (spread != nullptr) *spread = squares;
  return value;
}

bool SplitLoads::acyclic(const std::vector<int>& edges) const {
  // Kahn's algorithm on the few devices.
  std::vector<int> indegree(static_cast<std::size_t>(devices_), 0);
  for (int a = 0; a < devices_; ++a) {
    for (int b = 0; b < devices_; ++b)
      indegree[b] += edges[static_cast<std::size_t>(a * devices_ + b)] > 0;
  }
  std::vector<int> ready;
  for (int d = 0; d < devices_; ++d) {
    if (indegree[d] == 0) ready.push_back(d);
  }
  int done = 0;
  while (!ready.empty()) {
    const int a = ready.back();
    ready.pop_back();
    ++done;
    for (int b = 0; b < devices_; ++b) {
      if (edges[static_cast<std::size_t>(a * devices_ + b)] > 0 && --indegree[b] == 0) ready.push_back(b);
    }
  }
  return done == devices_;
}

std::vector<char> SplitLoads::critical(bool gpipe) const {
  std::vector<char> at_max(static_cast<std::size_t>(devices_), 0);
  for (int part = 0; part < (gpipe ? 2 : 1); ++part) {
    double worst = 0;
    for (int d = 0; d < devices_; ++d)
      worst = std::max(worst, gpipe ? partLoad(part, d) : load(d));
    for (int d = 0; d < devices_; ++d) {
      if ((gpipe ? partLoad(part, d) : load(d)) >= worst * (1 - 1e-9)) at_max[d] = 1;
    }
  }
  return at_max;
}

}  // namespace placer
