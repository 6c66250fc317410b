// Machines made to measure (issue 30, `onnx-placer topology`): grids, two-level clusters and random
// bandwidths, as device specifications in the topology form (device_spec.h). The device kind and
// the CPU cores come from a base specification; the generator gives the devices and the links.
//
//   mesh / torus   a 2-D or 3-D grid (dims "4x4", "4x4x4"), each device linked to its neighbours
//                  along every axis at `bandwidth`; a torus also joins the ends of each axis longer
//                  than 2. Devices are named gpu<i> in row-major order (the last axis fastest).
//   cluster        `nodes` x `gpus`: each node's GPUs on a switch of their own at `bandwidth`
//                  ("node<n>"), the node switches on one fabric switch at `inter_bandwidth`, so a
//                  transfer between nodes is as wide as the inter-node link (NVLink inside a node,
//                  InfiniBand between nodes).
//   random-block   `devices` devices (--count) in blocks of `block`, every pair linked: within a block at a
//                  bandwidth drawn uniformly from [bandwidth / 2, bandwidth], across blocks from
//                  [min_bandwidth, 2 * min_bandwidth] (fast islands, slow fabric: Parmesan's
//                  random_blk topologies as we read them; its appendix gives no figures).
//   uniform        `devices` devices (--count), every pair linked at a bandwidth drawn uniformly from
//                  [min_bandwidth, bandwidth] (Parmesan's uniform_dist).
//
// The draws come from a 64-bit Mersenne twister seeded with `seed`, turned into doubles by this
// code (not by the standard distributions, whose results differ between libraries), so a seed gives
// the same machine everywhere. Every link has `latency`; every device keeps the base's host link.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "cost_model/device_spec.h"

namespace placer {

struct TopologyRequest {
  std::string shape;              // mesh, torus, cluster, random-block, uniform
  std::vector<int> dims;          // mesh, torus: 2 or 3 sizes
  int nodes = 0, gpus = 0;        // cluster
  int devices = 0;                // random-block, uniform
  int block = 0;                  // random-block
  double bandwidth = 0;           // bytes/s each way
  double inter_bandwidth = 0;     // cluster: between nodes
  double min_bandwidth = 0;       // random-block: across blocks; uniform: the lowest
  double latency = 0;             // seconds per transfer, every link
  std::uint64_t seed = 0;
};

// "4x4" or "4x4x4": 2 or 3 sizes of at least 1; InvalidInput otherwise.
Expected<std::vector<int>> parseGridDims(const std::string& text);

// The specification of the machine `request` describes, with `base`'s device figures (its
// accelerators, or its first kind) and CPU cores. InvalidInput naming the field that is missing or
// out of range.
Expected<DeviceSpec> generateTopology(const TopologyRequest& request, const DeviceSpec& base);

}  // namespace placer
