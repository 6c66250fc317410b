// GraphBuilder: tiny problems for unit tests, written the way the paper draws them.
//
//   GraphBuilder b({.accelerators = 2, .memory = 100, .cpus = 1});
//   int x = b.node(1.0, 5.0);            // p_acc, p_cpu (memory 0)
//   int y = b.node(2.0, 3.0, 40);        // with memory
//   b.edge(x, y, 0.5);                   // transfer cost of x's output on this edge
//   b.sharedWeight(30, {x, y});          // a weight both read: held once per accelerator
//   Problem p = b.build();
// Node ids are vertex indices and also the nodes' original ids (members).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/problem.h"

namespace placer::testing {

class GraphBuilder {
 public:
  explicit GraphBuilder(DeviceSet devices = {2, 1e18, 1}) { problem_.devices = devices; }

  int node(double p_acc, double p_cpu, double memory = 0, std::string name = "") {
    OpNode n;
    n.p_acc = p_acc;
    n.p_cpu = p_cpu;
    n.memory = memory;
    const int id = static_cast<int>(boost::num_vertices(problem_.graph));
    n.name = name.empty() ? "n" + std::to_string(id) : std::move(name);
    n.members = {id};
    addNode(problem_.graph, std::move(n));
    return id;
  }
  GraphBuilder& backward(int id) {
    problem_.graph[id].backward = true;
    return *this;
  }
  GraphBuilder& colocate(int id, int cls) {
    problem_.graph[id].colocation = cls;
    return *this;
  }
  GraphBuilder& unsupported(int id) {
    problem_.graph[id].p_acc = kInfinity;
    return *this;
  }
  // `cpu_cost`: what a CPU core pays for the tensor at a stage boundary (0 in the paper's model).
  GraphBuilder& edge(int from, int to, double cost, double cpu_cost = 0) {
    boost::add_edge(from, to, OpEdge{cost, false, cpu_cost}, problem_.graph);
    return *this;
  }
  // A weight of `bytes` that every accelerator holding one of `readers` holds once.
  GraphBuilder& sharedWeight(double bytes, std::vector<int> readers, std::string name = "") {
    SharedWeight w;
    w.name = name.empty() ? "w" + std::to_string(problem_.weights.size()) : std::move(name);
    w.bytes = bytes;
    for (int r : readers)
      w.readers.push_back(static_cast<Vertex>(r));
    std::sort(w.readers.begin(), w.readers.end());
    w.readers.erase(std::unique(w.readers.begin(), w.readers.end()), w.readers.end());
    if (w.readers.size() == 1) {
      problem_.graph[w.readers.front()].memory += bytes;  // one reader: its own memory
    } else {
      problem_.weights.push_back(std::move(w));
    }
    return *this;
  }
  GraphBuilder& overlap(Overlap mode) {
    problem_.objective.overlap = mode;
    return *this;
  }
  Problem build() const {
    Problem p = problem_;
    p.nets = buildNets(p.graph);
    p.source = "test";
    return p;
  }

 private:
  Problem problem_;
};

// Adds 1..max_weights shared weights to `p` (of n >= 2 nodes), each read by 2..max_readers distinct
// nodes and of min_bytes..max_bytes bytes, all drawn from std::mt19937(seed).
inline void addRandomSharedWeights(Problem& p, std::uint32_t seed, int max_weights, int max_readers,
                                   int min_bytes, int max_bytes) {
  std::mt19937 rng(seed);
  const int n = static_cast<int>(boost::num_vertices(p.graph));
  const int count = 1 + static_cast<int>(rng() % static_cast<std::uint32_t>(max_weights));
  for (int i = 0; i < count; ++i) {
    std::vector<Vertex> ids(n);
    for (int v = 0; v < n; ++v)
      ids[v] = static_cast<Vertex>(v);
    std::shuffle(ids.begin(), ids.end(), rng);
    ids.resize(2 + rng() % static_cast<std::uint32_t>(std::min(max_readers - 1, n - 1)));
    std::sort(ids.begin(), ids.end());
    const double bytes =
        min_bytes + static_cast<double>(rng() % static_cast<std::uint32_t>(max_bytes - min_bytes + 1));
    p.weights.push_back({"w" + std::to_string(i), bytes, ids});
  }
}

}  // namespace placer::testing
