#include "core/evaluate.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace placer {

double memoryExcess(const Problem& problem, const std::vector<int>& device_of) {
  const std::vector<double> memory = deviceMemory(problem, device_of);
  double excess = 0;
  for (int d = 0; d < problem.devices.accelerators; ++d)
    excess += std::max(0.0, memory[d] - problem.devices.memoryOf(d));
  return excess;
}

Problem withUnlimitedMemory(Problem problem) {
  problem.devices.memory = kInfinity;
  for (AcceleratorKind& kind : problem.devices.kinds)
    kind.memory = kInfinity;
  return problem;
}

std::string deviceName(const DeviceSet& devices, int d) {
  if (!devices.isAccelerator(d)) return "cpu " + std::to_string(d - devices.accelerators);
  std::string name = "accelerator " + std::to_string(d);
  if (devices.mixed()) name += " (" + devices.kinds[devices.kindOf(d)].name + ")";
  return name;
}

double acceleratorLoad(Overlap overlap, double compute, double comm_in, double comm_out) {
  switch (overlap) {
    case Overlap::None:
      return comm_in + compute + comm_out;
    case Overlap::Max:
      return std::max(compute, comm_in + comm_out);
    case Overlap::Duplex:
      return std::max({comm_in, compute, comm_out});
  }
  return kInfinity;
}

Evaluation evaluateThroughput(const Problem& problem, const std::vector<int>& device_of) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  Evaluation result;
  result.devices.resize(devices.count());
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    DeviceLoad& d = result.devices[device_of[v]];
    ++d.nodes;
    d.compute += deviceTime(g[v], devices, device_of[v]);
  }
  const std::vector<double> memory = deviceMemory(problem, device_of);
  for (int d = 0; d < devices.count(); ++d)
    result.devices[d].memory = memory[d];
  std::vector<int> receivers;
  for (const Net& net : problem.nets) {
    const int from = device_of[net.source];
    receivers.clear();
    for (Vertex s : net.sinks) {
      if (device_of[s] != from) receivers.push_back(device_of[s]);
    }
    if (receivers.empty()) continue;
    std::sort(receivers.begin(), receivers.end());
    receivers.erase(std::unique(receivers.begin(), receivers.end()), receivers.end());
    result.devices[from].comm_out += devices.isAccelerator(from) ? net.cost : net.cpu_cost;
    for (int to : receivers)
      result.devices[to].comm_in += devices.isAccelerator(to) ? net.cost : net.cpu_cost;
  }
  for (int d = 0; d < devices.count(); ++d) {
    DeviceLoad& load = result.devices[d];
    // A CPU core does its boundary work itself: no overlap with its compute.
    load.load = devices.isAccelerator(d)
                    ? acceleratorLoad(problem.objective.overlap, load.compute, load.comm_in, load.comm_out)
                    : load.compute + load.comm_in + load.comm_out;
    result.max_load = std::max(result.max_load, load.load);
  }
  return result;
}

namespace {

std::string bytes(double value) {
  std::ostringstream out;
  out << std::setprecision(15) << value;
  return out.str();
}

// Each stage is on one device and every forward edge goes to the same or a later stage, which makes
// the quotient graph acyclic. In a contiguous split each device also holds one stage (one block of
// the forward pipeline); a non-contiguous one may give a device several (§5.2's virtual devices).
Status checkPipelineOrder(const Problem& problem, const Placement& placement, bool contiguous) {
  const OpGraph& g = problem.graph;
  std::map<int, int> stage_of_device, device_of_stage;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].backward) continue;
    const int device = placement.device_of[v], stage = placement.stage_of[v];
    auto [it, inserted] = stage_of_device.try_emplace(device, stage);
    if (contiguous && !inserted && it->second != stage) {
      return internalError(deviceName(problem.devices, device) +
                           " holds forward nodes of two pipeline stages (" + describeNode(g, v) + ")");
    }
    auto [jt, new_stage] = device_of_stage.try_emplace(stage, device);
    if (!new_stage && jt->second != device) {
      return internalError("pipeline stage " + std::to_string(stage) + " is on two devices");
    }
  }
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    Vertex u = boost::source(*it, g), w = boost::target(*it, g);
    if (g[u].backward || g[w].backward) continue;
    if (placement.stage_of[u] > placement.stage_of[w]) {
      return internalError("edge " + describeNode(g, u) + " -> " + describeNode(g, w) +
                           " goes backwards in the pipeline: the split is not contiguous");
    }
  }
  return Status::ok();
}

}  // namespace

Status verify(const Problem& problem, const Placement& placement, bool contiguous) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const DeviceSet& devices = problem.devices;
  if (placement.device_of.size() != n || placement.stage_of.size() != n) {
    return internalError("placement covers " + std::to_string(placement.device_of.size()) +
                         " nodes, the graph has " + std::to_string(n));
  }
  std::map<int, int> device_of_class;
  for (Vertex v = 0; v < n; ++v) {
    int d = placement.device_of[v];
    if (d < 0 || d >= devices.count()) {
      return internalError(describeNode(g, v) + " is on device " + std::to_string(d) +
                           ", which does not exist");
    }
    if (devices.isAccelerator(d) && !g[v].supportedOnAccelerator()) {
      return internalError(describeNode(g, v) + " is not supported on accelerators but is on " +
                           deviceName(devices, d));
    }
    if (g[v].colocation) {
      auto [it, inserted] = device_of_class.try_emplace(*g[v].colocation, d);
      if (!inserted && it->second != d) {
        return internalError(describeNode(g, v) + " is separated from its colocation class " +
                             std::to_string(*g[v].colocation));
      }
    }
  }
  // A non-contiguous split of a contracted graph whose forward part has cycles (a colocation class
  // around a path) has no pipeline order there: its stages are ordered, and checked, once it is
  // expanded onto the original nodes.
  if (contiguous || findCycle(g, /*forward_only=*/true).empty()) {
    if (Status s = checkPipelineOrder(problem, placement, contiguous); !s) return s;
  }

  Evaluation eval = evaluateThroughput(problem, placement.device_of);
  for (int d = 0; d < devices.accelerators; ++d) {
    if (eval.devices[d].memory > devices.memoryOf(d) * (1 + 1e-12)) {
      return internalError(deviceName(devices, d) + " holds " + bytes(eval.devices[d].memory) +
                           " bytes, more than its " + bytes(devices.memoryOf(d)));
    }
  }
  double scale = std::max(1.0, std::abs(eval.max_load));
  if (!(std::abs(eval.max_load - placement.value) <= 1e-9 * scale)) {
    return internalError("placement claims max-load " + std::to_string(placement.value) +
                         " but recomputes to " + std::to_string(eval.max_load));
  }
  return Status::ok();
}

}  // namespace placer

namespace placer {

std::vector<std::string> splitViolations(const Problem& problem, const std::vector<int>& device_of) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  std::vector<std::string> out;
  std::map<int, std::pair<int, Vertex>> device_of_class;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (devices.isAccelerator(device_of[v]) && !g[v].supportedOnAccelerator()) {
      out.push_back(describeNode(g, v) + " is not supported on accelerators but is on " +
                    deviceName(devices, device_of[v]));
    }
    if (g[v].colocation) {
      auto [it, inserted] = device_of_class.try_emplace(*g[v].colocation, device_of[v], v);
      if (!inserted && it->second.first != device_of[v]) {
        out.push_back(describeNode(g, v) + " is separated from " + describeNode(g, it->second.second) +
                      " (colocation class " + std::to_string(*g[v].colocation) + ")");
      }
    }
  }
  Evaluation eval = evaluateThroughput(problem, device_of);
  for (int d = 0; d < devices.accelerators; ++d) {
    if (eval.devices[d].memory > devices.memoryOf(d) * (1 + 1e-12)) {
      out.push_back(deviceName(devices, d) + " holds " + bytes(eval.devices[d].memory) +
                    " bytes, more than its " + bytes(devices.memoryOf(d)));
    }
  }
  // Quotient graph of the forward part over devices must be acyclic.
  OpGraph quotient(devices.count());
  std::set<std::pair<int, int>> seen;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    Vertex u = boost::source(*it, g), w = boost::target(*it, g);
    if (g[u].backward || g[w].backward || device_of[u] == device_of[w]) continue;
    if (seen.emplace(device_of[u], device_of[w]).second)
      boost::add_edge(device_of[u], device_of[w], quotient);
  }
  if (auto cycle = findCycle(quotient, /*forward_only=*/false); !cycle.empty()) {
    std::string path;
    for (Vertex d : cycle)
      path += deviceName(devices, static_cast<int>(d)) + " -> ";
    out.push_back("the forward pipeline has a cycle (" + path +
                  deviceName(devices, static_cast<int>(cycle.front())) + "): the split is not contiguous");
  }
  return out;
}

double gpipeObjective(const Problem& problem, const std::vector<int>& device_of) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  // [part][device]: part 0 forward, 1 backward.
  std::vector<double> compute[2], in[2], out[2];
  for (int part = 0; part < 2; ++part) {
    compute[part].assign(devices.count(), 0);
    in[part].assign(devices.count(), 0);
    out[part].assign(devices.count(), 0);
  }
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    const int d = device_of[v];
    compute[g[v].backward][d] += deviceTime(g[v], devices, d);
  }
  for (const Net& net : problem.nets) {
    const int from = device_of[net.source];
    const int part = g[net.source].backward;
    std::vector<int> receivers;
    for (Vertex s : net.sinks) {
      if (device_of[s] != from) receivers.push_back(device_of[s]);
    }
    if (receivers.empty()) continue;
    std::sort(receivers.begin(), receivers.end());
    receivers.erase(std::unique(receivers.begin(), receivers.end()), receivers.end());
    out[part][from] += devices.isAccelerator(from) ? net.cost : net.cpu_cost;
    for (int to : receivers)
      in[part][to] += devices.isAccelerator(to) ? net.cost : net.cpu_cost;
  }
  double total = 0;
  for (int part = 0; part < 2; ++part) {
    double worst = 0;
    for (int d = 0; d < devices.count(); ++d) {
      const double load =
          devices.isAccelerator(d)
              ? acceleratorLoad(problem.objective.overlap, compute[part][d], in[part][d], out[part][d])
              : compute[part][d] + in[part][d] + out[part][d];
      worst = std::max(worst, load);
    }
    total += worst;
  }
  return total;
}

}  // namespace placer
