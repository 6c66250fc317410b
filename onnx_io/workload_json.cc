#include "onnx_io/workload_json.h"

#include "onnx_io/input_file.h"
#include "onnx_io/json_text.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace placer {

using nlohmann::json;

namespace {

Expected<json> parseJson(const std::string& text, const std::string& source) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    return invalidInput(textPosition(text, e.byte == 0 ? 0 : e.byte - 1, source) +
                        ": malformed JSON: " + jsonErrorDetail(e.what()));
  } catch (const json::exception& e) {  // a number out of a double's range
    return invalidInput(numberErrorPosition(text, e.what(), source) +
                        ": malformed JSON: " + jsonErrorDetail(e.what()));
  }
}

// Field readers: `where` names the object ("node 7 (nodes[3])") for messages.
class FieldReader {
 public:
  FieldReader(const json& object, std::string where) : object_(object), where_(std::move(where)) {}

  Status number(const char* key, double& out, bool required, double fallback = 0) const {
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (required) return missing(key);
      out = fallback;
      return Status::ok();
    }
    if (!it->is_number()) return invalidInput(where_ + ": field \"" + key + "\" must be a number");
    out = it->get<double>();
    if (!std::isfinite(out)) return invalidInput(where_ + ": field \"" + key + "\" is not finite");
    return Status::ok();
  }

  Status nonNegative(const char* key, double& out, bool required, double fallback = 0) const {
    if (Status s = number(key, out, required, fallback); !s) return s;
    if (out < 0) {
      std::ostringstream msg;
      msg << where_ << ": field \"" << key << "\" is negative (" << out << ")";
      return invalidInput(msg.str());
    }
    return Status::ok();
  }

  // An integer, written as such or as a float with no fraction, within +-2^53.
  Status integer(const char* key, long long& out, bool required, long long fallback = 0) const {
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (required) return missing(key);
      out = fallback;
      return Status::ok();
    }
    return integerValue(*it, std::string("field \"") + key + "\"", out);
  }

  // A 0/1 flag; JSON booleans are accepted too.
  Status flag(const char* key, bool& out, bool fallback) const {
    auto it = object_.find(key);
    if (it == object_.end()) {
      out = fallback;
      return Status::ok();
    }
    if (it->is_boolean()) {
      out = it->get<bool>();
      return Status::ok();
    }
    long long v = 0;
    if (Status s = integerValue(*it, std::string("field \"") + key + "\"", v); !s) return s;
    if (v != 0 && v != 1) return invalidInput(where_ + ": field \"" + key + "\" must be 0 or 1");
    out = v == 1;
    return Status::ok();
  }

  Status integerValue(const json& value, const std::string& what, long long& out) const {
    constexpr double kLimit = 9007199254740992.0;  // 2^53: beyond it doubles skip integers
    if (value.is_number_integer()) {
      if (value.is_number_unsigned() &&
          value.get<unsigned long long>() > static_cast<unsigned long long>(kLimit)) {
        return invalidInput(where_ + ": " + what + " is out of range");
      }
      out = value.get<long long>();
      if (std::abs(static_cast<double>(out)) > kLimit)
        return invalidInput(where_ + ": " + what + " is out of range");
      return Status::ok();
    }
    if (value.is_number_float()) {
      const double d = value.get<double>();
      if (std::floor(d) != d) return invalidInput(where_ + ": " + what + " must be an integer");
      if (std::abs(d) > kLimit) return invalidInput(where_ + ": " + what + " is out of range");
      out = static_cast<long long>(d);
      return Status::ok();
    }
    return invalidInput(where_ + ": " + what + " must be an integer");
  }

 private:
  Status missing(const char* key) const { return invalidInput(where_ + ": missing field \"" + key + "\""); }
  const json& object_;
  std::string where_;
};

std::string nodeWhere(const std::string& source, std::size_t index, const json& node) {
  std::string where = source + ": nodes[" + std::to_string(index) + "]";
  auto id = node.find("id");
  if (id != node.end() && id->is_number_integer())
    where += " (node " + std::to_string(id->get<long long>()) + ")";
  return where;
}

// A JSON integer as a node id (0 .. INT_MAX), or nullopt when it cannot be one.
std::optional<int> asNodeId(const json& value) {
  if (value.is_number_unsigned()) {
    const auto v = value.get<unsigned long long>();
    if (v > static_cast<unsigned long long>(std::numeric_limits<int>::max())) return std::nullopt;
    return static_cast<int>(v);
  }
  const auto v = value.get<long long>();
  if (v < 0 || v > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(v);
}

// "sharedWeights": [{"name": "wte", "size": bytes, "nodes": [ids]}]: a weight every accelerator that
// holds one of the nodes holds once (core/problem.h). A weight listed for one node is its memory.
Status readSharedWeights(const json& root, const std::string& source,
                         const std::map<long long, Vertex>& vertex_of_id, Problem& problem) {
  auto section = root.find("sharedWeights");
  if (section == root.end()) return Status::ok();
  if (!section->is_array()) return invalidInput(source + ": field \"sharedWeights\" must be an array");
  for (std::size_t i = 0; i < section->size(); ++i) {
    const json& entry = (*section)[i];
    std::string where = source + ": sharedWeights[" + std::to_string(i) + "]";
    if (!entry.is_object()) return invalidInput(where + ": a shared weight must be a JSON object");
    SharedWeight weight;
    if (auto name = entry.find("name"); name != entry.end()) {
      if (!name->is_string()) return invalidInput(where + ": field \"name\" must be a string");
      weight.name = *name;
      where += " (\"" + weight.name + "\")";
    }
    FieldReader f(entry, where);
    if (Status s = f.nonNegative("size", weight.bytes, true); !s) return s;
    auto nodes = entry.find("nodes");
    if (nodes == entry.end()) return invalidInput(where + ": missing field \"nodes\"");
    if (!nodes->is_array() || nodes->empty())
      return invalidInput(where + ": field \"nodes\" must be a non-empty array of node ids");
    for (const json& id : *nodes) {
      auto v = id.is_number_integer() ? asNodeId(id) : std::nullopt;
      auto it = v ? vertex_of_id.find(*v) : vertex_of_id.end();
      if (it == vertex_of_id.end())
        return invalidInput(where + ": nodes: " + id.dump() + " is not a node id");
      weight.readers.push_back(it->second);
    }
    std::sort(weight.readers.begin(), weight.readers.end());
    weight.readers.erase(std::unique(weight.readers.begin(), weight.readers.end()), weight.readers.end());
    if (weight.readers.size() == 1) {
      problem.graph[weight.readers.front()].memory += weight.bytes;
    } else {
      problem.weights.push_back(std::move(weight));
    }
  }
  return Status::ok();
}

// The device set's fields: one accelerator's memory and how many accelerators and CPU cores.
Status readWorkloadDevices(const json& root, const std::string& source, DeviceSet& devices) {
  FieldReader top(root, source);
  if (Status s = top.nonNegative("maxSizePerFPGA", devices.memory, true); !s) return s;
  for (auto [key, count] :
       {std::pair{"maxFPGAs", &devices.accelerators}, std::pair{"maxCPUs", &devices.cpus}}) {
    double value = 0;
    if (Status s = top.number(key, value, true); !s) return s;
    if (value < 0 || value > 4096 || std::floor(value) != value) {
      std::ostringstream msg;
      msg << source << ": field \"" << key << "\" must be an integer from 0 to 4096 (got " << value << ")";
      return invalidInput(msg.str());
    }
    *count = static_cast<int>(value);
  }
  return Status::ok();
}

// The nodes, each an operator of the graph, with the vertex of each node id.
Status readWorkloadNodes(const json& root, const std::string& source, Problem& problem,
                         std::map<long long, Vertex>& vertex_of_id) {
  const json& nodes = root["nodes"];
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const json& node = nodes[i];
    const std::string where = nodeWhere(source, i, node);
    if (!node.is_object()) return invalidInput(where + ": a node must be a JSON object");
    FieldReader f(node, where);
    long long id = 0, color = 0;
    bool supported = true, backward = false;
    OpNode op;
    if (Status s = f.integer("id", id, true); !s) return s;
    if (Status s = f.nonNegative("cpuLatency", op.p_cpu, true); !s) return s;
    if (Status s = f.nonNegative("fpgaLatency", op.p_acc, true); !s) return s;
    if (Status s = f.nonNegative("size", op.memory, false); !s) return s;
    if (Status s = f.nonNegative("weightBytes", op.weight_bytes, false); !s) return s;
    if (Status s = f.flag("supportedOnFpga", supported, true); !s) return s;
    if (Status s = f.flag("isBackwardNode", backward, false); !s) return s;
    if (node.contains("colorClass")) {
      if (Status s = f.integer("colorClass", color, true); !s) return s;
      if (color < std::numeric_limits<int>::min() || color > std::numeric_limits<int>::max()) {
        return invalidInput(where + ": field \"colorClass\" is out of range");
      }
      op.colocation = static_cast<int>(color);
    }
    if (auto name = node.find("name"); name != node.end() && name->is_string()) op.name = *name;
    if (id < 0 || id > std::numeric_limits<int>::max()) {
      return invalidInput(where + ": id must be a non-negative 32-bit integer");
    }
    if (!supported) op.p_acc = kInfinity;
    op.backward = backward;
    op.members = {static_cast<int>(id)};
    if (vertex_of_id.count(id)) return invalidInput(where + ": duplicate node id " + std::to_string(id));
    vertex_of_id[id] = addNode(problem.graph, std::move(op));
  }

  return Status::ok();
}

// The edges: each between two nodes, never from a backward node to a forward one.
Status readWorkloadEdges(const json& root, const std::string& source, Problem& problem,
                         const std::map<long long, Vertex>& vertex_of_id) {
  const json& edges = root["edges"];
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const json& edge = edges[i];
    std::string where = source + ": edges[" + std::to_string(i) + "]";
    if (!edge.is_object()) return invalidInput(where + ": an edge must be a JSON object");
    FieldReader f(edge, where);
    long long from = 0, to = 0;
    OpEdge e;
    if (Status s = f.integer("sourceId", from, true); !s) return s;
    if (Status s = f.integer("destId", to, true); !s) return s;
    where += " (" + std::to_string(from) + " -> " + std::to_string(to) + ")";
    FieldReader g(edge, where);
    if (Status s = g.nonNegative("cost", e.cost, true); !s) return s;
    if (Status s = g.nonNegative("cpuCost", e.cpu_cost, false); !s) return s;
    if (Status s = g.nonNegative("size", e.bytes, false); !s) return s;  // bytes, for a topology's links
    auto u = vertex_of_id.find(from), w = vertex_of_id.find(to);
    if (u == vertex_of_id.end())
      return invalidInput(where + ": sourceId " + std::to_string(from) + " is not a node id");
    if (w == vertex_of_id.end())
      return invalidInput(where + ": destId " + std::to_string(to) + " is not a node id");
    if (from == to) return invalidInput(where + ": self-loop on node " + std::to_string(from));
    if (problem.graph[u->second].backward && !problem.graph[w->second].backward) {
      return invalidInput(where + ": edge from backward node " + std::to_string(from) + " to forward node " +
                          std::to_string(to) + " (backward nodes may only feed backward nodes)");
    }
    boost::add_edge(u->second, w->second, e, problem.graph);
  }

  return Status::ok();
}

// Refuses a graph with a cycle, naming the node ids along it.
Status rejectCycle(const OpGraph& graph, const std::string& source) {
  if (auto cycle = findCycle(graph, /*forward_only=*/false); !cycle.empty()) {
    std::string path;
    for (Vertex v : cycle)
      path += std::to_string(graph[v].members.front()) + " -> ";
    path += std::to_string(graph[cycle.front()].members.front());
    return invalidInput(source + ": the graph has a cycle: " + path + " (starting at " +
                        describeNode(graph, cycle.front()) + ")");
  }
  return Status::ok();
}

}  // namespace

Expected<Problem> parseWorkload(const std::string& text, const std::string& source) {
  auto parsed = parseJson(text, source);
  if (!parsed) return parsed.status();
  const json& root = *parsed;
  if (!root.is_object()) return invalidInput(source + ": the workload must be a JSON object");

  Problem problem;
  problem.source = source;
  if (Status s = readWorkloadDevices(root, source, problem.devices); !s) return s;
  for (const char* key : {"nodes", "edges"}) {
    if (!root.contains(key)) return invalidInput(source + ": missing field \"" + key + "\"");
    if (!root[key].is_array()) return invalidInput(source + ": field \"" + key + "\" must be an array");
  }

  std::map<long long, Vertex> vertex_of_id;
  if (Status s = readWorkloadNodes(root, source, problem, vertex_of_id); !s) return s;
  if (Status s = readWorkloadEdges(root, source, problem, vertex_of_id); !s) return s;
  if (Status s = rejectCycle(problem.graph, source); !s) return s;
  problem.nets = buildNets(problem.graph);
  if (Status s = readSharedWeights(root, source, vertex_of_id, problem); !s) return s;
  return problem;
}

Expected<std::string> readTextFile(const std::filesystem::path& path) {
  return readInputFile(path, kMaxTextBytes);
}

Expected<Problem> readWorkload(const std::filesystem::path& path) {
  auto text = readTextFile(path);
  if (!text) return text.status();
  return parseWorkload(*text, path.string());
}

nlohmann::ordered_json placementToJson(const Problem& problem, const Placement& placement,
                                       const Evaluation& evaluation) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  std::vector<std::vector<int>> ids(devices.count());
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    for (int id : g[v].members)
      ids[placement.device_of[v]].push_back(id);
  }
  nlohmann::ordered_json out;
  out["maxLoad"] = evaluation.max_load;
  out["fpgas"] = nlohmann::ordered_json::array();
  out["cpus"] = nlohmann::ordered_json::array();
  for (int d = 0; d < devices.count(); ++d) {
    std::sort(ids[d].begin(), ids[d].end());
    nlohmann::ordered_json device{{"load", evaluation.devices[d].load}, {"nodes", ids[d]}};
    if (devices.isAccelerator(d)) {
      device["memory"] = evaluation.devices[d].memory;
      out["fpgas"].push_back(device);
    } else {
      out["cpus"].push_back(device);
    }
  }
  return out;
}

nlohmann::ordered_json latencyPlacementToJson(const Problem& problem, const Placement& placement,
                                              const LatencyEvaluation& evaluation) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  auto ids = [&](const std::vector<Vertex>& vertices) {
    std::vector<int> out;
    for (Vertex v : vertices)
      out.insert(out.end(), g[v].members.begin(), g[v].members.end());
    std::sort(out.begin(), out.end());
    return out;
  };
  std::vector<std::vector<Vertex>> on_device(devices.count());
  for (Vertex v = 0; v < boost::num_vertices(g); ++v)
    on_device[placement.device_of[v]].push_back(v);
  nlohmann::ordered_json out;
  out["totalLatency"] = evaluation.latency;
  out["fpgas"] = nlohmann::ordered_json::array();
  out["cpus"] = nlohmann::ordered_json::array();
  for (int d = 0; d < devices.count(); ++d) {
    nlohmann::ordered_json device{{"nodes", ids(on_device[d])}};
    if (devices.isAccelerator(d)) {
      device["memory"] = evaluation.memory[d];
      device["subgraphs"] = nlohmann::ordered_json::array();
      for (const LatencySubgraph& s : evaluation.subgraphs) {
        if (s.device != d) continue;
        device["subgraphs"].push_back({{"nodes", ids(s.nodes)}, {"start", s.start}, {"finish", s.finish}});
      }
      out["fpgas"].push_back(device);
    } else {
      out["cpus"].push_back(device);
    }
  }
  return out;
}

Expected<nlohmann::ordered_json> workloadToJson(const Problem& problem) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  std::vector<const Net*> net_of(n, nullptr);
  for (const Net& net : problem.nets) {
    if (net_of[net.source]) {
      return invalidInput(describeNode(g, net.source) +
                          " sends several outputs; subdivide the problem before exporting it");
    }
    net_of[net.source] = &net;
  }
  int next_class = 0;
  for (Vertex v = 0; v < n; ++v) {
    if (g[v].colocation) next_class = std::max(next_class, *g[v].colocation + 1);
    // The format has no "cannot run on a CPU"; a time it cannot hold would come back as null.
    if (!std::isfinite(g[v].p_cpu)) {
      return invalidInput(describeNode(g, v) +
                          " has no CPU time (the device specification gives no CPU figures and no profile "
                          "times it), and the workload format needs one");
    }
  }
  nlohmann::ordered_json out;
  out["maxSizePerFPGA"] = problem.devices.memory;
  out["maxFPGAs"] = problem.devices.accelerators;
  out["maxCPUs"] = problem.devices.cpus;
  out["nodes"] = nlohmann::ordered_json::array();
  for (Vertex v = 0; v < n; ++v) {
    const OpNode& node = g[v];
    out["nodes"].push_back({{"name", node.name},
                            {"id", v},
                            {"supportedOnFpga", node.supportedOnAccelerator() ? 1 : 0},
                            {"cpuLatency", node.p_cpu},
                            {"fpgaLatency", node.supportedOnAccelerator() ? node.p_acc : 0.0},
                            {"isBackwardNode", node.backward ? 1 : 0},
                            {"colorClass", node.colocation ? *node.colocation : next_class++},
                            {"size", node.memory}});
    if (node.weight_bytes > 0) out["nodes"].back()["weightBytes"] = node.weight_bytes;
  }
  out["edges"] = nlohmann::ordered_json::array();
  for (Vertex v = 0; v < n; ++v) {
    if (!net_of[v]) continue;
    for (Vertex s : net_of[v]->sinks) {
      nlohmann::ordered_json edge{{"sourceId", v}, {"destId", s}, {"cost", net_of[v]->cost}};
      if (net_of[v]->cpu_cost != 0) edge["cpuCost"] = net_of[v]->cpu_cost;
      if (net_of[v]->bytes > 0) edge["size"] = net_of[v]->bytes;  // for partition --topology
      out["edges"].push_back(std::move(edge));
    }
  }
  if (!problem.weights.empty()) {
    out["sharedWeights"] = nlohmann::ordered_json::array();
    for (const SharedWeight& w : problem.weights) {
      nlohmann::ordered_json readers = nlohmann::ordered_json::array();
      for (Vertex r : w.readers)
        readers.push_back(r);
      out["sharedWeights"].push_back({{"name", w.name}, {"size", w.bytes}, {"nodes", readers}});
    }
  }
  return out;
}

Expected<std::vector<int>> parseSplit(const std::string& text, const std::string& source,
                                      const Problem& problem) {
  auto parsed = parseJson(text, source);
  if (!parsed) return parsed.status();
  const json& root = *parsed;
  if (!root.is_object()) return invalidInput(source + ": a split must be a JSON object");
  const OpGraph& g = problem.graph;
  std::map<int, Vertex> vertex_of_id;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    for (int id : g[v].members)
      vertex_of_id[id] = v;
  }
  std::vector<int> device_of(boost::num_vertices(g), -1);
  struct Kind {
    const char* key;
    int first_device;
    int count;
  };
  const DeviceSet& devices = problem.devices;
  for (const Kind& kind :
       {Kind{"fpgas", 0, devices.accelerators}, Kind{"cpus", devices.accelerators, devices.cpus}}) {
    if (!root.contains(kind.key)) continue;
    const json& list = root[kind.key];
    if (!list.is_array()) return invalidInput(source + ": field \"" + kind.key + "\" must be an array");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string where = source + ": " + kind.key + "[" + std::to_string(i) + "]";
      if (!list[i].is_object() || !list[i].contains("nodes") || !list[i]["nodes"].is_array()) {
        return invalidInput(where + ": expected an object with a \"nodes\" array");
      }
      const json& ids = list[i]["nodes"];
      if (ids.empty()) continue;
      if (static_cast<int>(i) >= kind.count) {
        return invalidInput(where + ": the split uses more " + kind.key + " than the workload's " +
                            std::to_string(kind.count));
      }
      for (const json& id_value : ids) {
        if (!id_value.is_number_integer()) return invalidInput(where + ": node ids must be integers");
        const std::string id = id_value.dump();
        const std::optional<int> node_id = asNodeId(id_value);
        auto it = node_id ? vertex_of_id.find(*node_id) : vertex_of_id.end();
        if (it == vertex_of_id.end()) return invalidInput(where + ": node " + id + " is not in the workload");
        if (device_of[it->second] != -1) return invalidInput(where + ": node " + id + " is listed twice");
        device_of[it->second] = kind.first_device + static_cast<int>(i);
      }
    }
  }
  // Nodes left out follow their colocation class.
  std::map<int, std::set<int>> devices_of_class;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (device_of[v] != -1 && g[v].colocation) devices_of_class[*g[v].colocation].insert(device_of[v]);
  }
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (device_of[v] != -1) continue;
    auto it = g[v].colocation ? devices_of_class.find(*g[v].colocation) : devices_of_class.end();
    if (it == devices_of_class.end()) {
      return invalidInput(source + ": " + describeNode(g, v) +
                          " is not in the split and has no colocated node there to follow");
    }
    if (it->second.size() > 1) {
      return invalidInput(source + ": " + describeNode(g, v) +
                          " is not in the split and its colocation class is on several devices");
    }
    device_of[v] = *it->second.begin();
  }
  return device_of;
}

Expected<std::vector<int>> readSplit(const std::filesystem::path& path, const Problem& problem) {
  auto text = readTextFile(path);
  if (!text) return text.status();
  return parseSplit(*text, path.string(), problem);
}

}  // namespace placer
