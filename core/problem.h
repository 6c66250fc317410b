// The placement problem: operator DAG with per-node costs, communication nets, devices, objective.
//
// Cost model of Tarnawski et al. 2020, §3: node v has p_cpu(v), p_acc(v) (+inf when the operator is
// not supported on an accelerator) and memory m_v; moving v's output between an accelerator and CPU
// RAM costs c_v, paid once per device boundary, not once per edge. We keep that "paid once" rule
// exact across contractions with *nets* (hyperedges): a net is a producer node, the consumer nodes
// of one output, and a cost. Device d pays the net's cost as outgoing communication when the producer
// is on d and some consumer is not, and as incoming communication when a consumer is on d and the
// producer is not (SliceGraph's tensor-counted-once rule; App. B's edge subdivision is the special
// case of one net per edge). A CPU core pays the net's cpu_cost under the same rule: the runtime's
// work at a stage boundary (handing a tensor from one stage's session to the next), 0 in the paper's
// model, where CPUs share host memory and pay nothing.
//
// Memory follows the same "once per device" rule for weights that several operators read (a tied
// embedding matrix, a shared constant): a SharedWeight lists its readers, and an accelerator that
// holds any of them holds the weight once, however many of them it holds. A node's own `memory` is
// what only it holds. So a weight is replicated onto every device that reads it, with each copy
// counted there; colocating its readers is the special case of one device (and what a solver picks
// when copies would not fit).
//
// The graph is a Boost.Graph adjacency_list with vecS storage and bidirectional edges: vertex
// descriptors are dense indices (so per-node arrays are plain vectors), and solvers need both
// predecessor and successor lists. Contraction passes build a new graph rather than mutate in
// place, so descriptors stay dense.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/infinity.h"
#include "core/status.h"

namespace placer {

struct OpNode {
  std::string name;
  std::string op_type;
  double p_acc = 0;     // time per sample on an accelerator (of kind 0); +inf when unsupported there
  double p_cpu = 0;     // time per sample on one CPU core
  double memory = 0;    // bytes resident on the accelerator that holds the node
  double out_cost = 0;  // c_u for an input node; after contraction the nets carry the costs
  bool backward = false;
  bool artificial = false;        // created by a pass (subdivision node, orphan image): no original node
  std::optional<int> colocation;  // same class => same device
  std::vector<int> members;       // original node ids this node stands for (sorted)
  // On a machine of several accelerator kinds (DeviceSet::kinds): the time on kinds 1, 2, ... (kind
  // 0's is p_acc), finite exactly where p_acc is. Empty: p_acc on every kind.
  std::vector<double> p_kinds;
  // The bytes of the parameters it holds, whose gradients a data-parallel replica all-reduces every
  // training step (a workload's "weightBytes"; core/replicas.h). Contraction adds them up.
  double weight_bytes = 0;

  bool supportedOnAccelerator() const { return !std::isinf(p_acc); }
  // The time per sample on an accelerator of `kind`.
  double accTime(int kind) const {
    return kind == 0 || p_kinds.empty() ? p_acc : p_kinds[static_cast<std::size_t>(kind) - 1];
  }
};

struct OpEdge {
  double cost = 0;          // the input's transfer cost for this edge (informational after load)
  bool artificial = false;  // ordering-only edge (orphan mirror, linearisation): moves no data
  double cpu_cost = 0;      // the same tensor's cost at a boundary between CPU stages
  double bytes = 0;         // the tensor's size per sample (0 where unknown: workloads, artificial edges)
};

using OpGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, OpNode, OpEdge>;
using Vertex = OpGraph::vertex_descriptor;
using Edge = OpGraph::edge_descriptor;

// One transferred output: paid once by the producer's device and once by each other device that
// holds a consumer. `sinks` never contains `source` and has no duplicates.
struct Net {
  Vertex source = 0;
  std::vector<Vertex> sinks;
  double cost = 0;      // paid by an accelerator: link transfer and the runtime's work at the cut
  double cpu_cost = 0;  // paid by a CPU core: the runtime's work at the cut
  // The tensor's bytes per sample, so that a transfer can be priced between any two devices of a
  // topology (core/topology.h); 0 where the problem does not know them (a workload file).
  double bytes = 0;
};

// A weight held once by every accelerator that holds one of its readers (see above).
struct SharedWeight {
  std::string name;
  double bytes = 0;
  std::vector<Vertex> readers;  // sorted, distinct, at least two
};

// A kind of accelerator on a mixed machine (issue 30): its name, how many devices are of it and the
// memory of each.
struct AcceleratorKind {
  std::string name;
  int count = 0;
  double memory = 0;
  bool operator==(const AcceleratorKind&) const = default;
};

struct DeviceSet {
  int accelerators = 0;  // k
  double memory = 0;     // M, bytes per accelerator (on a mixed machine: the largest kind's)
  int cpus = 0;          // l
  // A mixed machine: two or more kinds, in device order (accelerators 0..count₀-1 are kinds[0]'s,
  // the next count₁ kinds[1]'s, ...), their counts adding up to `accelerators`, each with its own
  // memory and (OpNode::p_kinds) times. Empty: every accelerator is alike, with `memory`.
  std::vector<AcceleratorKind> kinds;

  DeviceSet() = default;
  DeviceSet(int accelerators_, double memory_, int cpus_)
      : accelerators(accelerators_), memory(memory_), cpus(cpus_) {}

  int count() const { return accelerators + cpus; }
  bool isAccelerator(int device) const { return device < accelerators; }
  bool mixed() const { return !kinds.empty(); }
  int kindCount() const { return mixed() ? static_cast<int>(kinds.size()) : 1; }
  // Accelerators of a kind, their memory, and the first one's device id.
  int kindSize(int kind) const { return mixed() ? kinds[kind].count : accelerators; }
  double kindMemory(int kind) const { return mixed() ? kinds[kind].memory : memory; }
  int firstOfKind(int kind) const;
  // The kind and the memory of an accelerator.
  int kindOf(int accelerator) const;
  double memoryOf(int accelerator) const { return kindMemory(kindOf(accelerator)); }
  bool operator==(const DeviceSet&) const = default;
};

// What accelerator `device` of `devices` takes to run `node` (its p_cpu on a CPU core).
inline double deviceTime(const OpNode& node, const DeviceSet& devices, int device) {
  return devices.isAccelerator(device) ? node.accTime(devices.kindOf(device)) : node.p_cpu;
}

// Appendix C.1: how communication and computation share an accelerator's time.
enum class Overlap {
  None,    // load = in + compute + out (the paper's default)
  Max,     // load = max(compute, in + out)
  Duplex,  // load = max(in, compute, out): separate channels each way
};

// What a split is judged by: pipelined throughput (max-load, §5) or single-sample latency (§4).
enum class Goal { Throughput, Latency };

struct Objective {
  Goal goal = Goal::Throughput;
  Overlap overlap = Overlap::None;  // throughput only
  bool gpipe = false;               // throughput of training: max FW + max BW (App. A), IP only
};

struct Problem {
  OpGraph graph;
  std::vector<Net> nets;
  std::vector<SharedWeight> weights;
  DeviceSet devices;
  Objective objective;
  std::string source;  // where the problem came from (file name), for messages
};

// Device ids: 0..k-1 are accelerators, k..k+l-1 are CPU cores.
struct Placement {
  std::vector<int> device_of;  // per vertex
  std::vector<int> stage_of;   // per vertex: position of its device's block in the pipeline
  double value = 0;            // objective value (max-load)
};

// Adds a node. Adding the vertex and then assigning its bundle (rather than add_vertex(node, g))
// keeps GCC 12 from a false maybe-uninitialized warning inside Boost's named_graph at -O2.
inline Vertex addNode(OpGraph& graph, OpNode node) {
  Vertex v = boost::add_vertex(graph);
  graph[v] = std::move(node);
  return v;
}

// Human-readable node reference for messages: `node 17 "conv1"`.
std::string describeNode(const OpGraph& graph, Vertex v);

// Nets of an input graph: one per node whose outgoing edges all have the same costs, one per edge for
// a node whose outgoing edges differ (App. B: subdividing each edge is exactly that). Artificial
// edges carry no data and make no net. A net's bytes are the largest its edges give.
std::vector<Net> buildNets(const OpGraph& graph);

// Topological order of the forward subgraph (forward nodes, edges between forward nodes), or
// nullopt if it has a cycle. Deterministic: smallest index first among ready nodes.
std::optional<std::vector<Vertex>> forwardTopologicalOrder(const OpGraph& graph);

// A cycle (as vertices in order), empty if there is none. With forward_only, backward nodes and
// their edges are ignored.
std::vector<Vertex> findCycle(const OpGraph& graph, bool forward_only);

// Every time, size and transfer cost is a finite non-negative number (+inf times mark a node a kind of
// device cannot run), and their totals stay finite, so no load, latency or memory sum a solver forms
// can overflow to infinity. InvalidInput naming the total (and its largest term) otherwise. The pass
// manager checks this before the first pass.
Status checkMagnitudes(const Problem& problem);

// Checks a mixed machine's kinds (at least two, counts >= 0 adding up to the accelerators, memory
// finite and > 0, `memory` the largest) and every node's p_kinds (empty, or one time per kind after
// the first, finite exactly where p_acc is, never negative); InvalidInput naming the kind or node.
Status checkKinds(const Problem& problem);

// The machine of one kind that a mixed one relaxes to: every node at its fastest kind's time, every
// accelerator with the largest memory. Its optimum is at most the mixed machine's (every split of
// the mixed machine is one of it, no slower and no fuller), so its lower bounds hold for both. A
// problem of one kind is returned unchanged.
Problem relaxKinds(const Problem& problem);

// Bytes an accelerator needs for everything: every node's own memory and every shared weight once.
double totalMemory(const Problem& problem);

// Per vertex, the indices of the shared weights it reads.
std::vector<std::vector<int>> weightsOfVertices(const Problem& problem);

// Per vertex, the least memory an accelerator holding it needs: its own and the weights it reads.
std::vector<double> standaloneMemory(const Problem& problem);

// Memory of an accelerator holding exactly `vertices` (distinct): their own memory and each weight
// any of them reads, once.
double memoryOfSet(const Problem& problem, const std::vector<Vertex>& vertices);

// Per device, the memory it holds under `device_of` (CPUs included; only accelerators are limited).
std::vector<double> deviceMemory(const Problem& problem, const std::vector<int>& device_of);

// Contracts every group of vertices (group_of[v] in 0..groups-1, every group non-empty) into one
// vertex: costs and memory add up, members are united, edges are deduplicated and self-loops
// dropped (an edge is artificial only if all of its pre-images are), nets are remapped, and shared
// weights are remapped (a weight whose readers all fall into one group becomes that group's own
// memory). Returns the new problem; new vertex i is group i.
Problem contractGroups(const Problem& problem, const std::vector<int>& group_of, int groups);

}  // namespace placer
