// The machine's topology: widest-path routes against hand computations (a DGX-1 pair with no direct
// NVLink, the host star of today's device specifications, a switch) and against brute force over
// every simple path on small random graphs, and the refusals of a malformed topology.
#include "core/topology.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

namespace placer::testing {
namespace topology_test {

constexpr double kNvLink = 25e9;  // one NVLink 2.0, each way

// The DGX-1 (V100) hybrid cube-mesh as nvidia-smi topo -m reports it: GPUs 0-3 and 4-7 fully
// connected, 0-4, 1-5, 2-6, 3-7 across; single and double NVLinks, six per GPU.
Topology dgx1() {
  Topology t;
  t.kinds = {"v100"};
  for (int i = 0; i < 8; ++i) t.devices.push_back({"gpu" + std::to_string(i), 0});
  const int single[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 6}, {5, 7}};
  const int dual[][2] = {{0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {4, 7}, {5, 6}, {6, 7}};
  for (const auto& l : single) t.links.push_back({l[0], l[1], kNvLink, 1e-6});
  for (const auto& l : dual) t.links.push_back({l[0], l[1], 2 * kNvLink, 1e-6});
  for (int i = 0; i < 8; ++i) t.links.push_back({i, 8, 12e9, 1e-5});  // PCIe to the host (node 8)
  return t;
}

TEST(Topology, Dgx1EveryGpuHasSixNvLinks) {
  const Topology t = dgx1();
  for (int gpu = 0; gpu < 8; ++gpu) {
    double links = 0;
    for (const TopologyLink& l : t.links) {
      if ((l.a == gpu || l.b == gpu) && l.a != 8 && l.b != 8) links += l.bandwidth / kNvLink;
    }
    EXPECT_EQ(links, 6) << "gpu" << gpu;
  }
}

// GPU0 and GPU5 share no NVLink. One-hop detours cross a single link (0-1-5: 25 GB/s, 0-4-5:
// 25 GB/s); the double-link ring 0-3-2-1-5 (or 0-4-7-6-5) keeps 50 GB/s over four links, with four
// link latencies. PCIe through the host is 12 GB/s.
TEST(Topology, Dgx1PairWithoutADirectNvLinkTakesTheWidestPath) {
  Topology t = dgx1();
  ASSERT_TRUE(t.finish());
  EXPECT_EQ(t.bandwidth(0, 5), 2 * kNvLink);
  EXPECT_EQ(t.hops(0, 5), 4);
  EXPECT_DOUBLE_EQ(t.latency(0, 5), 4e-6);
  const double bytes = 1e8;
  EXPECT_DOUBLE_EQ(t.transferSeconds(0, 5, bytes), 4e-6 + bytes / (2 * kNvLink));
  // A direct double link: one hop; a direct single link is beaten by no path.
  EXPECT_EQ(t.bandwidth(0, 3), 2 * kNvLink);
  EXPECT_EQ(t.hops(0, 3), 1);
  EXPECT_EQ(t.bandwidth(0, 1), 2 * kNvLink) << "0-3-2-1 is all double links";
  EXPECT_EQ(t.hops(0, 1), 3);
  // The route's links, in order, join gpu0 to gpu5, each a double link; the reverse route is the
  // same links reversed.
  const std::vector<int> path = t.path(0, 5);
  ASSERT_EQ(path.size(), 4u);
  int at = 0;
  for (int l : path) {
    const TopologyLink& link = t.links[l];
    ASSERT_TRUE(link.a == at || link.b == at);
    at = link.a == at ? link.b : link.a;
    EXPECT_EQ(link.bandwidth, 2 * kNvLink);
  }
  EXPECT_EQ(at, 5);
  std::vector<int> back = t.path(5, 0);
  std::reverse(back.begin(), back.end());
  EXPECT_EQ(back, path);
  EXPECT_TRUE(t.path(3, 3).empty());
  // To the host, its own PCIe link; to itself, nothing.
  EXPECT_EQ(t.bandwidth(0, t.hostNode()), 12e9);
  EXPECT_EQ(t.transferSeconds(2, 2, bytes), 0);
  EXPECT_EQ(t.transferSeconds(0, 5, 0), 0);
}

TEST(Topology, UniformTopologyIsTheHostStarOfToday) {
  Topology t = uniformTopology(4, 12e9, 1e-5);
  ASSERT_TRUE(t.finish());
  EXPECT_EQ(t.devices.size(), 4u);
  EXPECT_EQ(t.nodeName(t.hostNode()), "host");
  EXPECT_EQ(t.nodeOf("gpu:2"), 2);
  // Between two accelerators: up to the host and down again.
  EXPECT_EQ(t.bandwidth(0, 3), 12e9);
  EXPECT_EQ(t.hops(0, 3), 2);
  EXPECT_DOUBLE_EQ(t.transferSeconds(0, 3, 12e9), 2e-5 + 1.0);
  EXPECT_DOUBLE_EQ(t.transferSeconds(0, t.hostNode(), 12e9), 1e-5 + 1.0);
}

TEST(Topology, ASwitchJoinsItsDevices) {
  Topology t;
  t.kinds = {"h100"};
  for (int i = 0; i < 4; ++i) t.devices.push_back({"gpu" + std::to_string(i), 0});
  t.switches = {"nvswitch"};
  for (int i = 0; i < 4; ++i) t.links.push_back({i, 4, 4.5e11, 1e-6});
  for (int i = 0; i < 4; ++i) t.links.push_back({i, 5, 6.4e10, 1e-5});
  ASSERT_TRUE(t.finish());
  EXPECT_EQ(t.nodeOf("nvswitch"), 4);
  EXPECT_EQ(t.bandwidth(1, 3), 4.5e11);
  EXPECT_DOUBLE_EQ(t.latency(1, 3), 2e-6);
}

// Widest bandwidth over every simple path, by brute force.
double bruteForceWidest(const Topology& t, int from, int to) {
  const int n = t.nodeCount();
  std::vector<bool> on(n, false);
  double best = 0;
  std::function<void(int, double)> walk = [&](int node, double width) {
    if (node == to) {
      best = std::max(best, width);
      return;
    }
    on[node] = true;
    for (const TopologyLink& l : t.links) {
      const int next = l.a == node ? l.b : l.b == node ? l.a : -1;
      if (next >= 0 && !on[next]) walk(next, std::min(width, l.bandwidth));
    }
    on[node] = false;
  };
  walk(from, std::numeric_limits<double>::infinity());
  return best;
}

TEST(Topology, WidestPathEqualsBruteForceOnRandomGraphs) {
  for (int seed = 0; seed < 40; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> size(2, 7);
    Topology t;
    t.kinds = {"a"};
    const int devices = size(rng);
    for (int i = 0; i < devices; ++i) t.devices.push_back({"d" + std::to_string(i), 0});
    const int host = devices;
    std::uniform_real_distribution<double> width(1, 100);
    for (int a = 0; a <= host; ++a) {
      for (int b = a + 1; b <= host; ++b) {
        if (rng() % 2 == 0) t.links.push_back({a, b, std::round(width(rng)), 1e-6 * (1 + rng() % 3)});
      }
    }
    for (int i = 0; i + 1 <= host; ++i) t.links.push_back({i, i + 1, 0.5, 1e-3});  // connected, slowly
    ASSERT_TRUE(t.finish()) << "seed " << seed;
    for (int a = 0; a <= host; ++a) {
      for (int b = 0; b <= host; ++b) {
        if (a == b) continue;
        EXPECT_EQ(t.bandwidth(a, b), bruteForceWidest(t, a, b)) << "seed " << seed << " " << a << "->" << b;
        EXPECT_EQ(t.bandwidth(a, b), t.bandwidth(b, a));
        // The route's links lead from a to b, with the route's bandwidth, latency and hops.
        double narrowest = std::numeric_limits<double>::infinity(), latency = 0;
        int at = a;
        for (int l : t.path(a, b)) {
          const TopologyLink& link = t.links[l];
          ASSERT_TRUE(link.a == at || link.b == at) << "seed " << seed;
          at = link.a == at ? link.b : link.a;
          narrowest = std::min(narrowest, link.bandwidth);
          latency += link.latency;
        }
        EXPECT_EQ(at, b);
        EXPECT_EQ(narrowest, t.bandwidth(a, b));
        EXPECT_DOUBLE_EQ(latency, t.latency(a, b));
        EXPECT_EQ(static_cast<int>(t.path(a, b).size()), t.hops(a, b));
      }
    }
  }
}

TEST(Topology, MalformedTopologiesAreRefusedNamingWhat) {
  auto refused = [](Topology t, const std::string& what) {
    const Status s = t.finish();
    EXPECT_FALSE(s) << what;
    EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
  };
  Topology two = uniformTopology(2, 1e9, 0);
  Topology t = two;
  t.devices[1].name = "gpu:0";
  refused(t, "two devices or switches are named \"gpu:0\"");
  t = two;
  t.devices[0].name = "host";
  refused(t, "\"host\" names the host");
  t = two;
  t.devices[0].kind = 3;
  refused(t, "device \"gpu:0\" has no valid kind");
  t = two;
  t.links[0].bandwidth = 0;
  refused(t, "link between \"gpu:0\" and \"host\": bandwidth must be > 0");
  t = two;
  t.links.pop_back();
  refused(t, "no path from \"gpu:0\" to \"gpu:1\"");
}

}  // namespace topology_test
}  // namespace placer::testing
