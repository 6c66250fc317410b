// The machine a placement runs on (issue 30): accelerators, each of a kind, the links between them
// (directly, or through switches), and the host, with the cost of moving bytes between any two.
//
// A link joins two nodes (devices, switches or the host) with a bandwidth (bytes/s, each way) and a
// latency (seconds per transfer). A transfer between two nodes takes a widest path between them:
// one whose narrowest link is widest (its bandwidth is the path's), with the latencies of its links
// added up. The search (a label-setting one from every node) is exact for the bandwidth; among
// equally wide paths it prefers, at each step, the lower latency and then the fewer links. A transfer
// from a node to itself costs nothing; between nodes with no path, +inf.
//
// Today's device specifications are the special case of identical accelerators that each reach the
// others only through the host (uniformTopology): a transfer between two accelerators crosses two
// host links.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace placer {

struct TopologyLink {
  int a = 0, b = 0;        // node indices (Topology::nodeCount)
  double bandwidth = 0;    // bytes/s each way, > 0
  double latency = 0;      // seconds per transfer, >= 0
  bool operator==(const TopologyLink&) const = default;
};

class Topology {
 public:
  struct Device {
    std::string name;
    int kind = 0;  // index into kinds
    bool operator==(const Device&) const = default;
  };

  std::vector<std::string> kinds;     // the device kinds' names (one for a uniform machine)
  std::vector<Device> devices;        // the accelerators: nodes 0..devices.size()-1
  std::vector<std::string> switches;  // nodes devices.size()..: switches (NVSwitch, a node's NIC)
  std::vector<TopologyLink> links;    // the host is the last node (hostNode())

  int nodeCount() const { return static_cast<int>(devices.size() + switches.size()) + 1; }
  int hostNode() const { return nodeCount() - 1; }
  // The node of a name: a device's, a switch's, or "host"; -1 if none.
  int nodeOf(const std::string& name) const;
  std::string nodeName(int node) const;

  // Checks names (non-empty, distinct, not "host"), kinds, link ends and figures, and that every
  // device reaches every other; InvalidInput naming the device or link otherwise. Then computes the
  // routes between every pair of nodes; the accessors below need it.
  Status finish();

  double bandwidth(int from, int to) const { return route(from, to).bandwidth; }
  double latency(int from, int to) const { return route(from, to).latency; }
  int hops(int from, int to) const { return route(from, to).hops; }
  // latency + bytes / bandwidth along the route; 0 from a node to itself or for no bytes.
  double transferSeconds(int from, int to, double bytes) const;

  // The links (indices into `links`) of the route from `from` to `to`, in order; empty from a node
  // to itself.
  std::vector<int> path(int from, int to) const;

  // The same machine with only its first `count` devices (their links, the switches and the host).
  Expected<Topology> firstDevices(int count) const;

  // Equal machines: the same kinds, devices, switches and links (in order).
  bool operator==(const Topology& other) const {
    return kinds == other.kinds && devices == other.devices && switches == other.switches && links == other.links;
  }

 private:
  struct Route {
    double bandwidth = 0;  // +inf from a node to itself
    double latency = 0;
    int hops = 0;
    int tree = 0;  // whose search tree realises it: `from`'s, or `to`'s (the path reversed)
  };
  struct TreeStep {
    int previous = -1;  // the node before this one on the path from the tree's source
    int link = -1;      // the link between them
  };
  const Route& route(int from, int to) const { return routes_[static_cast<std::size_t>(from) * nodeCount() + to]; }
  std::vector<Route> routes_;     // nodeCount() x nodeCount(), row `from`
  std::vector<TreeStep> trees_;  // nodeCount() x nodeCount(): the search tree from each node
};

// `accelerators` devices of one kind, each linked to the host only, at `bandwidth` and `latency`:
// the machine today's device specifications describe.
Topology uniformTopology(int accelerators, double bandwidth, double latency, const std::string& kind = "accelerator");

}  // namespace placer
