#include "solvers/latency_places.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <utility>

namespace placer {

std::string tenDigits(double value) {
  std::ostringstream out;
  out << std::setprecision(10) << value;
  return out.str();
}

Places placesOf(const Problem& problem, int q) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const std::size_t n = boost::num_vertices(g);
  const int k = devices.accelerators;
  Places places;
  std::vector<double> standalone = standaloneMemory(problem);
  auto on_cpu = [&g, &devices](Vertex v) { return devices.cpus > 0 && std::isfinite(g[v].p_cpu); };
  places.on_accelerator = [&g, &devices, standalone, k](Vertex v) {
    return k > 0 && g[v].supportedOnAccelerator() && standalone[v] <= devices.memory;
  };
  const auto& on_accelerator = places.on_accelerator;
  std::map<int, std::vector<Vertex>>& classes = places.classes;
  for (Vertex v = 0; v < n; ++v) {
    if (g[v].colocation) classes[*g[v].colocation].push_back(v);
  }
  auto where_not = [&](Vertex v) {
    std::string why = !g[v].supportedOnAccelerator() ? "is not supported on accelerators"
                      : k == 0                       ? "has no accelerator to run on"
                               : "needs " + tenDigits(standalone[v]) + " bytes, more than an accelerator's " +
                                     tenDigits(devices.memory);
    return why + (devices.cpus == 0 ? ", and there is no CPU" : ", and it does not run on a CPU");
  };
  for (Vertex v = 0; v < n; ++v) {
    if (!on_cpu(v) && !on_accelerator(v)) {
      places.nowhere = describeNode(g, v) + " " + where_not(v);
      return places;
    }
  }
  std::vector<char> class_cpu(n, 1), class_accelerator(n, 1);  // per vertex, for its class
  for (const auto& [cls, members] : classes) {
    bool cpu = true, accelerator = true;
    const double memory = memoryOfSet(problem, members);
    for (Vertex v : members) {
      cpu = cpu && on_cpu(v);
      accelerator = accelerator && on_accelerator(v);
    }
    accelerator = accelerator && memory <= devices.memory;
    if (!cpu && !accelerator) {
      places.nowhere = describeNode(g, members.front()) + " and its colocation class (" +
                       std::to_string(members.size()) + " nodes, " + tenDigits(memory) +
                       " bytes) fit neither an accelerator nor a CPU";
      return places;
    }
    for (Vertex v : members) {
      class_cpu[v] = cpu;
      class_accelerator[v] = accelerator;
    }
  }
  if (devices.cpus == 0) {
    const double total = totalMemory(problem);
    double together = 0;
    for (int kind = 0; kind < devices.kindCount(); ++kind)
      together += devices.kindSize(kind) * devices.kindMemory(kind);
    if (total > together) {
      places.nowhere = "the nodes need " + tenDigits(total) + " bytes, more than the " + std::to_string(k) +
                       " accelerator(s) hold together (" + tenDigits(together) + "), and there is no CPU";
      return places;
    }
  }
  places.allowed = [on_cpu, on_accelerator, class_cpu = std::move(class_cpu),
                    class_accelerator = std::move(class_accelerator), standalone = std::move(standalone),
                    &devices, q](Vertex v, int c) {
    if (c == 0) return on_cpu(v) && class_cpu[v];
    return on_accelerator(v) && class_accelerator[v] && standalone[v] <= devices.memoryOf((c - 1) / q);
  };
  return places;
}

NodeTimes nodeTimes(const Problem& problem, int q, const Places& places) {
  const OpGraph& g = problem.graph;
  const DeviceSet& devices = problem.devices;
  const std::size_t n = boost::num_vertices(g);
  const int columns = 1 + devices.accelerators * q;
  NodeTimes times{std::vector<double>(n, kInfinity), std::vector<double>(n, 0.0), std::nullopt};
  for (Vertex v = 0; v < n; ++v) {
    for (int kind = -1; kind < devices.kindCount(); ++kind) {
      const int c = kind < 0 ? 0 : devices.firstOfKind(kind) * q + 1;
      if (c >= columns || (kind >= 0 && devices.kindSize(kind) == 0) || !places.allowed(v, c)) continue;
      const double p = c == 0 ? g[v].p_cpu : g[v].accTime(kind);
      times.cheapest[v] = std::min(times.cheapest[v], p);
      times.slowest[v] = std::max(times.slowest[v], p);
    }
    if (!std::isfinite(times.cheapest[v])) {
      times.nowhere = v;
      break;
    }
  }
  return times;
}

}  // namespace placer
