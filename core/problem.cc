// Helpers over the core problem types: net construction, forward topological order, contraction.
#include "core/problem.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <sstream>
#include <utility>

namespace placer {

std::string describeNode(const OpGraph& graph, Vertex v) {
  const OpNode& node = graph[v];
  std::string id = node.members.size() == 1 ? std::to_string(node.members.front()) : "#" + std::to_string(v);
  if (node.name.empty()) return "node " + id;
  return "node " + id + " \"" + node.name + "\"";
}

std::vector<Net> buildNets(const OpGraph& graph) {
  std::vector<Net> nets;
  for (Vertex u = 0; u < boost::num_vertices(graph); ++u) {
    struct Out {
      Vertex target;
      double cost, cpu_cost, bytes;
    };
    std::vector<Out> outs;
    for (auto [it, end] = boost::out_edges(u, graph); it != end; ++it) {
      if (graph[*it].artificial) continue;
      outs.push_back({boost::target(*it, graph), graph[*it].cost, graph[*it].cpu_cost, graph[*it].bytes});
    }
    if (outs.empty()) continue;
    bool uniform = std::all_of(outs.begin(), outs.end(), [&](const Out& o) {
      return o.cost == outs.front().cost && o.cpu_cost == outs.front().cpu_cost;
    });
    if (uniform) {
      // One output: its bytes are the largest any edge gives (the costs, which the solvers price,
      // decide the nets; a workload may give a zero size on some edges of one tensor).
      Net net{u, {}, outs.front().cost, outs.front().cpu_cost, 0};
      for (const Out& o : outs) {
        net.sinks.push_back(o.target);
        net.bytes = std::max(net.bytes, o.bytes);
      }
      std::sort(net.sinks.begin(), net.sinks.end());
      net.sinks.erase(std::unique(net.sinks.begin(), net.sinks.end()), net.sinks.end());
      nets.push_back(std::move(net));
    } else {
      for (const Out& o : outs)
        nets.push_back(Net{u, {o.target}, o.cost, o.cpu_cost, o.bytes});
    }
  }
  return nets;
}

std::optional<std::vector<Vertex>> forwardTopologicalOrder(const OpGraph& graph) {
  const std::size_t n = boost::num_vertices(graph);
  std::vector<int> indegree(n, 0);
  std::size_t forward_count = 0;
  for (Vertex v = 0; v < n; ++v) {
    if (graph[v].backward) continue;
    ++forward_count;
    for (auto [it, end] = boost::in_edges(v, graph); it != end; ++it) {
      if (!graph[boost::source(*it, graph)].backward) ++indegree[v];
    }
  }
  std::priority_queue<Vertex, std::vector<Vertex>, std::greater<>> ready;
  for (Vertex v = 0; v < n; ++v) {
    if (!graph[v].backward && indegree[v] == 0) ready.push(v);
  }
  std::vector<Vertex> order;
  order.reserve(forward_count);
  while (!ready.empty()) {
    Vertex v = ready.top();
    ready.pop();
    order.push_back(v);
    for (auto [it, end] = boost::out_edges(v, graph); it != end; ++it) {
      Vertex w = boost::target(*it, graph);
      if (!graph[w].backward && --indegree[w] == 0) ready.push(w);
    }
  }
  if (order.size() != forward_count) return std::nullopt;
  return order;
}

std::vector<Vertex> findCycle(const OpGraph& graph, bool forward_only) {
  const std::size_t n = boost::num_vertices(graph);
  enum : char { White, Grey, Black };
  std::vector<char> color(n, White);
  std::vector<Vertex> parent(n, n);
  // Iterative DFS; a grey successor closes a cycle, which we read back through `parent`.
  for (Vertex root = 0; root < n; ++root) {
    if ((forward_only && graph[root].backward) || color[root] != White) continue;
    std::vector<std::pair<Vertex, OpGraph::out_edge_iterator>> stack;
    color[root] = Grey;
    stack.emplace_back(root, boost::out_edges(root, graph).first);
    while (!stack.empty()) {
      auto& [v, it] = stack.back();
      if (it == boost::out_edges(v, graph).second) {
        color[v] = Black;
        stack.pop_back();
        continue;
      }
      Vertex w = boost::target(*it, graph);
      ++it;
      if (forward_only && graph[w].backward) continue;
      if (color[w] == Grey) {
        std::vector<Vertex> cycle{w};
        for (Vertex x = v; x != w; x = parent[x])
          cycle.push_back(x);
        std::reverse(cycle.begin() + 1, cycle.end());
        return cycle;
      }
      if (color[w] == White) {
        color[w] = Grey;
        parent[w] = v;
        stack.emplace_back(w, boost::out_edges(w, graph).first);
      }
    }
  }
  return {};
}

double totalMemory(const Problem& problem) {
  double total = 0;
  for (Vertex v = 0; v < boost::num_vertices(problem.graph); ++v)
    total += problem.graph[v].memory;
  for (const SharedWeight& w : problem.weights)
    total += w.bytes;
  return total;
}

namespace {

// A running sum that remembers its largest term, for the overflow message.
struct Total {
  explicit Total(const char* w) : what(w) {}
  const char* what;
  double sum = 0;
  double largest = 0;
  std::string largest_at;
  void add(double x, const std::function<std::string()>& where) {
    sum += x;
    if (x > largest) {
      largest = x;
      largest_at = where();
    }
  }
};

std::string overflowMessage(const Total& t) {
  std::ostringstream msg;
  msg << "the costs overflow: the " << t.what << " add up to more than the largest number ("
      << std::numeric_limits<double>::max() << ")";
  if (!t.largest_at.empty()) msg << "; the largest is " << t.largest << " at " << t.largest_at;
  return msg.str();
}

}  // namespace

Status checkMagnitudes(const Problem& problem) {
  const OpGraph& g = problem.graph;
  Total acc("accelerator times"), cpu("CPU times"), memory("memory sizes"), transfer("transfer costs");
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    const OpNode& node = g[v];
    auto at = [&] { return describeNode(g, v); };
    if (std::isnan(node.p_acc) || node.p_acc < 0 || std::isnan(node.p_cpu) || node.p_cpu < 0 ||
        !std::isfinite(node.memory) || node.memory < 0) {
      return invalidInput(at() + " has a negative or undefined time, or a negative or infinite size");
    }
    if (node.supportedOnAccelerator()) acc.add(node.p_acc, at);
    for (double t : node.p_kinds) {
      if (std::isfinite(t)) acc.add(t, at);
    }
    if (std::isfinite(node.p_cpu)) cpu.add(node.p_cpu, at);
    memory.add(node.memory, at);
  }
  for (const SharedWeight& w : problem.weights) {
    if (!std::isfinite(w.bytes) || w.bytes < 0)
      return invalidInput("shared weight \"" + w.name + "\" has a negative or infinite size");
    memory.add(w.bytes, [&] { return "shared weight \"" + w.name + "\""; });
  }
  // A net is paid by its producer's device and by each other device holding a consumer: no load
  // or latency counts it more often than this.
  for (const Net& net : problem.nets) {
    if (!std::isfinite(net.cost) || !std::isfinite(net.cpu_cost) || net.cost < 0 || net.cpu_cost < 0)
      return invalidInput("the output of " + describeNode(g, net.source) +
                          " has a negative, infinite or undefined transfer cost");
    const double times = 1.0 + static_cast<double>(net.sinks.size());
    transfer.add(times * (net.cost + net.cpu_cost),
                 [&] { return "the output of " + describeNode(g, net.source); });
  }
  if (Status s = checkKinds(problem); !s) return s;
  for (const Total* t : {&acc, &cpu, &memory, &transfer}) {
    if (!std::isfinite(t->sum)) return invalidInput(overflowMessage(*t));
  }
  if (!std::isfinite(acc.sum + cpu.sum + transfer.sum)) {
    std::ostringstream msg;
    msg << "the costs overflow: accelerator times (" << acc.sum << "), CPU times (" << cpu.sum
        << ") and transfer costs (" << transfer.sum << ") add up to more than the largest number ("
        << std::numeric_limits<double>::max() << ")";
    return invalidInput(msg.str());
  }
  return Status::ok();
}

int DeviceSet::firstOfKind(int kind) const {
  int first = 0;
  for (int k = 0; k < kind; ++k)
    first += kindSize(k);
  return first;
}

int DeviceSet::kindOf(int accelerator) const {
  if (!mixed()) return 0;
  int end = 0;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    end += kinds[k].count;
    if (accelerator < end) return static_cast<int>(k);
  }
  return static_cast<int>(kinds.size()) - 1;
}

Status checkKinds(const Problem& problem) {
  const DeviceSet& devices = problem.devices;
  const OpGraph& g = problem.graph;
  if (devices.mixed()) {
    if (devices.kinds.size() < 2)
      return invalidInput("a machine of one accelerator kind is described without kinds");
    int total = 0;
    double largest = 0;
    for (const AcceleratorKind& kind : devices.kinds) {
      if (kind.count < 0 || !std::isfinite(kind.memory) || !(kind.memory > 0))
        return invalidInput("accelerator kind \"" + kind.name + "\" has a negative count or no memory");
      total += kind.count;
      largest = std::max(largest, kind.memory);
    }
    if (total != devices.accelerators || largest != devices.memory) {
      return invalidInput("the accelerator kinds count " + std::to_string(total) +
                          " devices (the machine has " + std::to_string(devices.accelerators) +
                          "), or their largest memory is not the machine's");
    }
  }
  const std::size_t extra = static_cast<std::size_t>(devices.kindCount()) - 1;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    const OpNode& node = g[v];
    if (node.p_kinds.empty()) continue;
    if (node.p_kinds.size() != extra) {
      return invalidInput(describeNode(g, v) + " has times for " + std::to_string(node.p_kinds.size() + 1) +
                          " accelerator kinds, the machine has " + std::to_string(extra + 1));
    }
    for (double t : node.p_kinds) {
      if (std::isnan(t) || t < 0 || std::isinf(t) != std::isinf(node.p_acc))
        return invalidInput(describeNode(g, v) + " has a negative or undefined time on an accelerator kind, "
                            "or runs on some kinds and not on others");
    }
  }
  return Status::ok();
}

Problem relaxKinds(const Problem& problem) {
  if (!problem.devices.mixed()) return problem;
  Problem out = problem;
  for (Vertex v = 0; v < boost::num_vertices(out.graph); ++v) {
    OpNode& node = out.graph[v];
    for (double t : node.p_kinds)
      node.p_acc = std::min(node.p_acc, t);
    node.p_kinds.clear();
  }
  out.devices.kinds.clear();
  return out;
}

std::vector<std::vector<int>> weightsOfVertices(const Problem& problem) {
  std::vector<std::vector<int>> out(boost::num_vertices(problem.graph));
  for (std::size_t w = 0; w < problem.weights.size(); ++w) {
    for (Vertex r : problem.weights[w].readers)
      out[r].push_back(static_cast<int>(w));
  }
  return out;
}

std::vector<double> standaloneMemory(const Problem& problem) {
  std::vector<double> out(boost::num_vertices(problem.graph));
  for (Vertex v = 0; v < out.size(); ++v)
    out[v] = problem.graph[v].memory;
  for (const SharedWeight& w : problem.weights) {
    for (Vertex r : w.readers)
      out[r] += w.bytes;
  }
  return out;
}

double memoryOfSet(const Problem& problem, const std::vector<Vertex>& vertices) {
  double total = 0;
  std::vector<char> inside(boost::num_vertices(problem.graph), 0);
  for (Vertex v : vertices) {
    total += problem.graph[v].memory;
    inside[v] = 1;
  }
  for (const SharedWeight& w : problem.weights) {
    if (std::any_of(w.readers.begin(), w.readers.end(), [&](Vertex r) { return inside[r]; }))
      total += w.bytes;
  }
  return total;
}

std::vector<double> deviceMemory(const Problem& problem, const std::vector<int>& device_of) {
  std::vector<double> memory(problem.devices.count(), 0);
  for (Vertex v = 0; v < boost::num_vertices(problem.graph); ++v)
    memory[device_of[v]] += problem.graph[v].memory;
  std::vector<int> holders;
  for (const SharedWeight& w : problem.weights) {
    holders.clear();
    for (Vertex r : w.readers)
      holders.push_back(device_of[r]);
    std::sort(holders.begin(), holders.end());
    holders.erase(std::unique(holders.begin(), holders.end()), holders.end());
    for (int d : holders)
      memory[d] += w.bytes;
  }
  return memory;
}

Problem contractGroups(const Problem& problem, const std::vector<int>& group_of, int groups) {
  const OpGraph& g = problem.graph;
  Problem out;
  out.devices = problem.devices;
  out.objective = problem.objective;
  out.source = problem.source;
  out.graph = OpGraph(groups);

  std::vector<int> group_size(groups, 0);
  std::vector<bool> group_artificial(groups, true);
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    const OpNode& from = g[v];
    OpNode& to = out.graph[group_of[v]];
    if (group_size[group_of[v]]++ == 0) {
      to.name = from.name;
      to.op_type = from.op_type;
      to.backward = from.backward;
      to.colocation = from.colocation;
      to.out_cost = from.out_cost;
    } else {
      assert(to.backward == from.backward && "contraction must not mix forward and backward nodes");
      if (to.op_type != from.op_type) to.op_type = "group";
      if (!to.colocation) to.colocation = from.colocation;
      to.out_cost = 0;  // several outputs: only the nets know their costs
    }
    if (!from.p_kinds.empty() || !to.p_kinds.empty()) {
      const std::size_t extra = std::max(from.p_kinds.size(), to.p_kinds.size());
      if (to.p_kinds.empty()) to.p_kinds.assign(extra, to.p_acc);  // the members so far: p_acc on every kind
      for (std::size_t k = 0; k < extra; ++k)
        to.p_kinds[k] += from.accTime(static_cast<int>(k) + 1);
    }
    to.p_acc += from.p_acc;
    to.p_cpu += from.p_cpu;
    to.memory += from.memory;
    to.weight_bytes += from.weight_bytes;
    to.members.insert(to.members.end(), from.members.begin(), from.members.end());
    if (!from.artificial) group_artificial[group_of[v]] = false;
  }
  for (int i = 0; i < groups; ++i) {
    assert(group_size[i] > 0 && "every group must be non-empty");
    OpNode& node = out.graph[i];
    std::sort(node.members.begin(), node.members.end());
    node.artificial = group_artificial[i];
    if (group_size[i] > 1) node.name += " (+" + std::to_string(group_size[i] - 1) + " more)";
  }

  // Deduplicated edges: an edge stays "data" if any pre-image carried data.
  std::map<std::pair<int, int>, OpEdge> edges;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    int a = group_of[boost::source(*it, g)];
    int b = group_of[boost::target(*it, g)];
    if (a == b) continue;
    auto [pos, inserted] = edges.try_emplace({a, b}, g[*it]);
    if (!inserted) {
      pos->second.artificial = pos->second.artificial && g[*it].artificial;
      pos->second.cost = std::max(pos->second.cost, g[*it].cost);
      pos->second.cpu_cost = std::max(pos->second.cpu_cost, g[*it].cpu_cost);
      pos->second.bytes = std::max(pos->second.bytes, g[*it].bytes);
    }
  }
  for (const auto& [key, edge] : edges)
    boost::add_edge(key.first, key.second, edge, out.graph);

  for (const Net& net : problem.nets) {
    Net mapped{static_cast<Vertex>(group_of[net.source]), {}, net.cost, net.cpu_cost, net.bytes};
    for (Vertex s : net.sinks) {
      Vertex t = group_of[s];
      if (t != mapped.source) mapped.sinks.push_back(t);
    }
    std::sort(mapped.sinks.begin(), mapped.sinks.end());
    mapped.sinks.erase(std::unique(mapped.sinks.begin(), mapped.sinks.end()), mapped.sinks.end());
    if (!mapped.sinks.empty()) out.nets.push_back(std::move(mapped));
  }

  for (const SharedWeight& weight : problem.weights) {
    SharedWeight mapped{weight.name, weight.bytes, {}};
    for (Vertex r : weight.readers)
      mapped.readers.push_back(static_cast<Vertex>(group_of[r]));
    std::sort(mapped.readers.begin(), mapped.readers.end());
    mapped.readers.erase(std::unique(mapped.readers.begin(), mapped.readers.end()), mapped.readers.end());
    if (mapped.readers.size() == 1) {
      out.graph[mapped.readers.front()].memory += weight.bytes;  // one holder left: its own
    } else {
      out.weights.push_back(std::move(mapped));
    }
  }
  return out;
}

}  // namespace placer
