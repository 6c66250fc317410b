#include "core/topology.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "core/infinity.h"

namespace placer {

namespace {


// A route's label: wider first, then lower latency, then fewer links.
bool better(double bandwidth, double latency, int hops, double other_bandwidth, double other_latency, int other_hops) {
  return std::tie(other_bandwidth, latency, hops) < std::tie(bandwidth, other_latency, other_hops);
}

}  // namespace

int Topology::nodeOf(const std::string& name) const {
  if (name == "host") return hostNode();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].name == name) return static_cast<int>(i);
  }
  for (std::size_t i = 0; i < switches.size(); ++i) {
    if (switches[i] == name) return static_cast<int>(devices.size() + i);
  }
  return -1;
}

std::string Topology::nodeName(int node) const {
  if (node == hostNode()) return "host";
  if (node < static_cast<int>(devices.size())) return devices[node].name;
  return switches[node - devices.size()];
}

Status Topology::finish() {
  std::set<std::string> names;
  for (int node = 0; node + 1 < nodeCount(); ++node) {
    const std::string name = nodeName(node);
    if (name.empty()) return invalidInput("topology: node " + std::to_string(node) + " has no name");
    if (name == "host") return invalidInput("topology: \"host\" names the host, not a device or switch");
    if (!names.insert(name).second) return invalidInput("topology: two devices or switches are named \"" + name + "\"");
  }
  if (kinds.empty() && !devices.empty()) return invalidInput("topology: no device kinds");
  for (const Device& device : devices) {
    if (device.kind < 0 || device.kind >= static_cast<int>(kinds.size()))
      return invalidInput("topology: device \"" + device.name + "\" has no valid kind");
  }
  for (const TopologyLink& link : links) {
    if (link.a < 0 || link.b < 0 || link.a >= nodeCount() || link.b >= nodeCount() || link.a == link.b)
      return invalidInput("topology: a link must join two different nodes");
    const std::string what = "topology: link between \"" + nodeName(link.a) + "\" and \"" + nodeName(link.b) + "\"";
    if (!(link.bandwidth > 0) || !std::isfinite(link.bandwidth)) return invalidInput(what + ": bandwidth must be > 0");
    if (!(link.latency >= 0) || !std::isfinite(link.latency)) return invalidInput(what + ": latency must be >= 0");
  }
  // Widest paths from every node: a label-setting search on (bandwidth, latency, hops), each node
  // settled once with the best label among those reaching it.
  const int n = nodeCount();
  std::vector<std::vector<const TopologyLink*>> adjacent(n);
  for (const TopologyLink& link : links) {
    adjacent[link.a].push_back(&link);
    adjacent[link.b].push_back(&link);
  }
  routes_.assign(static_cast<std::size_t>(n) * n, Route{0, kInfinity, 0, 0});
  trees_.assign(static_cast<std::size_t>(n) * n, TreeStep{});
  for (int source = 0; source < n; ++source) {
    Route* row = &routes_[static_cast<std::size_t>(source) * n];
    TreeStep* tree = &trees_[static_cast<std::size_t>(source) * n];
    std::vector<bool> settled(n, false);
    for (int v = 0; v < n; ++v) row[v].tree = source;
    row[source] = Route{kInfinity, 0, 0, source};
    for (int step = 0; step < n; ++step) {
      int best = -1;
      for (int v = 0; v < n; ++v) {
        if (settled[v] || row[v].bandwidth <= 0) continue;
        if (best < 0 || better(row[v].bandwidth, row[v].latency, row[v].hops, row[best].bandwidth, row[best].latency,
                               row[best].hops))
          best = v;
      }
      if (best < 0) break;
      settled[best] = true;
      for (const TopologyLink* link : adjacent[best]) {
        const int next = link->a == best ? link->b : link->a;
        if (settled[next]) continue;
        const double bandwidth = std::min(row[best].bandwidth, link->bandwidth);
        const double latency = row[best].latency + link->latency;
        const int hops = row[best].hops + 1;
        if (row[next].bandwidth <= 0 || better(bandwidth, latency, hops, row[next].bandwidth, row[next].latency, row[next].hops)) {
          row[next] = Route{bandwidth, latency, hops, source};
          tree[next] = TreeStep{best, static_cast<int>(link - links.data())};
        }
      }
    }
  }
  // Both directions take the better of the two routes found, so that a transfer costs the same
  // either way (the searches from each end may break ties between equally wide paths differently).
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      Route& ab = routes_[static_cast<std::size_t>(a) * n + b];
      Route& ba = routes_[static_cast<std::size_t>(b) * n + a];
      if (better(ba.bandwidth, ba.latency, ba.hops, ab.bandwidth, ab.latency, ab.hops)) ab = ba;
      else ba = ab;
    }
  }
  for (std::size_t a = 0; a < devices.size(); ++a) {
    for (std::size_t b = 0; b < devices.size(); ++b) {
      if (route(static_cast<int>(a), static_cast<int>(b)).bandwidth <= 0)
        return invalidInput("topology: no path from \"" + devices[a].name + "\" to \"" + devices[b].name + "\"");
    }
  }
  return Status::ok();
}

std::vector<int> Topology::path(int from, int to) const {
  std::vector<int> out;
  if (from == to) return out;
  const Route& r = route(from, to);
  // Walk the realising tree from the far end back to its source.
  const int source = r.tree, end = source == from ? to : from;
  const TreeStep* tree = &trees_[static_cast<std::size_t>(source) * nodeCount()];
  for (int node = end; node != source && tree[node].link >= 0; node = tree[node].previous) out.push_back(tree[node].link);
  // From `to`'s tree the walk already runs from `from` to `to`; from `from`'s it runs backwards.
  if (source == from) std::reverse(out.begin(), out.end());
  return out;
}

double Topology::transferSeconds(int from, int to, double bytes) const {
  if (from == to || bytes <= 0) return 0;
  const Route& r = route(from, to);
  if (r.bandwidth <= 0) return kInfinity;
  return r.latency + bytes / r.bandwidth;
}

Expected<Topology> Topology::firstDevices(int count) const {
  const int have = static_cast<int>(devices.size());
  if (count < 0 || count > have) {
    return invalidInput("the topology has " + std::to_string(have) + " devices, not " + std::to_string(count));
  }
  Topology out;
  out.kinds = kinds;
  out.devices.assign(devices.begin(), devices.begin() + count);
  out.switches = switches;
  // Old node -> new node (-1: dropped).
  auto remap = [&](int node) { return node < count ? node : node < have ? -1 : node - (have - count); };
  for (const TopologyLink& link : links) {
    const int a = remap(link.a), b = remap(link.b);
    if (a >= 0 && b >= 0) out.links.push_back({a, b, link.bandwidth, link.latency});
  }
  if (Status s = out.finish(); !s) return s;
  return out;
}

Topology uniformTopology(int accelerators, double bandwidth, double latency, const std::string& kind) {
  Topology topology;
  topology.kinds = {kind};
  for (int i = 0; i < accelerators; ++i) topology.devices.push_back({"gpu:" + std::to_string(i), 0});
  for (int i = 0; i < accelerators; ++i) topology.links.push_back({i, accelerators, bandwidth, latency});
  return topology;
}

}  // namespace placer
