#include "cost_model/cost_model.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace placer {

OpShapeInfo shapeInfo(const OnnxGraph& graph, int node) {
  const OnnxNode& n = graph.nodes[node];
  OpShapeInfo info;
  info.op_type = n.op_type;
  info.domain = n.domain;
  info.int_attributes = n.int_attributes;
  info.float_attributes = n.float_attributes;
  for (int t : n.inputs) {
    info.inputs.push_back(t >= 0 ? graph.tensors[t].shape : std::nullopt);
    info.input_element_bytes.push_back(t >= 0 ? elementBytes(graph.tensors[t].element_type) : 0);
    info.input_is_weight.push_back(t >= 0 && graph.tensors[t].is_weight);
  }
  for (int t : n.outputs) {
    info.outputs.push_back(t >= 0 ? graph.tensors[t].shape : std::nullopt);
    info.output_element_bytes.push_back(t >= 0 ? elementBytes(graph.tensors[t].element_type) : 0);
  }
  return info;
}

std::optional<NodeTimes> RooflineCostModel::estimate(const OnnxGraph& graph, int node,
                                                     const DeviceSpec& devices) const {
  const OpWork work = estimateWork(shapeInfo(graph, node));
  NodeTimes times;
  times.accelerator =
      devices.accelerators.count > 0
          ? rooflineSeconds(work, {devices.accelerators.peak_flops, devices.accelerators.memory_bandwidth})
          : kInfinity;
  times.cpu = devices.cpus.count > 0
                  ? rooflineSeconds(work, {devices.cpus.peak_flops, devices.cpus.memory_bandwidth})
                  : kInfinity;
  return times;
}

namespace {

int findRoot(std::vector<int>& parent, int x) {
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

Expected<Annotation> annotate(const OnnxGraph& graph, const DeviceSpec& devices,
                              const std::vector<const CostModel*>& models, const AnnotateOptions& options) {
  Annotation out;
  Problem& problem = out.problem;
  problem.source = graph.path;
  problem.devices = devices.deviceSet();
  const int n = static_cast<int>(graph.nodes.size());

  // Readers of a large shared weight share a device: union them; the weight's bytes are held once.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<double> memory(n, 0);
  for (const TensorInfo& t : graph.tensors) {
    if (!t.is_weight || t.consumers.empty()) continue;
    const double bytes = t.bytes().value_or(0);
    if (t.consumers.size() > 1 && bytes >= options.colocate_weight_bytes) {
      for (int c : t.consumers)
        parent[findRoot(parent, c)] = findRoot(parent, t.consumers.front());
      memory[t.consumers.front()] += bytes;
    } else {
      for (int c : t.consumers)
        memory[c] += bytes;  // small constants are copied into each stage
    }
  }
  std::map<int, int> class_size;
  for (int v = 0; v < n; ++v)
    ++class_size[findRoot(parent, v)];

  for (int v = 0; v < n; ++v) {
    const OnnxNode& node = graph.nodes[v];
    std::optional<NodeTimes> times;
    for (const CostModel* model : models) {
      if ((times = model->estimate(graph, v, devices))) break;
    }
    if (!times) {
      return invalidInput(graph.path + ": no cost model gives a time for node \"" + node.name + "\" (" +
                          node.op_type + ")");
    }
    OpNode op;
    op.name = node.name;
    op.op_type = node.op_type;
    op.p_acc = times->accelerator;
    op.p_cpu = times->cpu;
    op.memory = memory[v];
    op.members = {v};
    const int root = findRoot(parent, v);
    if (class_size[root] > 1) op.colocation = root;
    addNode(problem.graph, std::move(op));
  }

  int unsized = 0;
  for (const TensorInfo& t : graph.tensors) {
    if (t.producer < 0 || t.consumers.empty()) continue;
    std::optional<double> bytes = t.bytes();
    if (!bytes) ++unsized;
    // Only accelerators pay transfers; without any there is no link to price them on.
    const double cost = devices.accelerators.count > 0 ? devices.transferSeconds(bytes.value_or(0)) : 0.0;
    Net net{static_cast<Vertex>(t.producer), {}, cost};
    for (int c : t.consumers) {
      if (c == t.producer) continue;
      net.sinks.push_back(static_cast<Vertex>(c));
      boost::add_edge(static_cast<Vertex>(t.producer), static_cast<Vertex>(c), OpEdge{net.cost, false},
                      problem.graph);
    }
    if (!net.sinks.empty()) problem.nets.push_back(std::move(net));
  }
  if (unsized > 0) {
    out.warnings.push_back(std::to_string(unsized) +
                           " tensor(s) have no static size; their transfers count 0 bytes");
  }
  return out;
}

}  // namespace placer
