#include "cost_model/topology_generators.h"

#include <cmath>
#include <random>
#include <sstream>

namespace placer {

namespace {

// Routing every pair is cubic in the nodes: 1024 devices route in seconds (Parmesan's largest
// machines have 512).
constexpr int kMaxGeneratedDevices = 1024;

// A double uniform in [lo, hi) from the twister's raw bits (53 of them).
double draw(std::mt19937_64& rng, double lo, double hi) {
  return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

Status positive(double value, const std::string& name) {
  if (!(value > 0) || !std::isfinite(value)) return invalidInput("topology: " + name + " must be a number > 0");
  return Status::ok();
}

Status countIn(int value, int low, const std::string& name) {
  if (value < low || value > kMaxGeneratedDevices) {
    return invalidInput("topology: " + name + " must be in " + std::to_string(low) + ".." +
                        std::to_string(kMaxGeneratedDevices) + " (got " + std::to_string(value) + ")");
  }
  return Status::ok();
}

void addDevices(Topology& t, int count) {
  for (int i = 0; i < count; ++i) t.devices.push_back({"gpu" + std::to_string(i), 0});
}

void link(Topology& t, int a, int b, double bandwidth, double latency) {
  t.links.push_back({a, b, bandwidth, latency});
}

Status grid(const TopologyRequest& r, bool torus, Topology& t) {
  if (r.dims.size() != 2 && r.dims.size() != 3) return invalidInput("topology: --dims needs 2 or 3 sizes, as 4x4 or 4x4x4");
  long long count = 1;
  for (int d : r.dims) count *= d;
  if (Status s = countIn(static_cast<int>(std::min<long long>(count, kMaxGeneratedDevices + 1)), 2, "the device count"); !s)
    return s;
  if (Status s = positive(r.bandwidth, "--bandwidth"); !s) return s;
  addDevices(t, static_cast<int>(count));
  // Row-major strides: the last axis fastest.
  std::vector<int> stride(r.dims.size(), 1);
  for (int axis = static_cast<int>(r.dims.size()) - 2; axis >= 0; --axis) stride[axis] = stride[axis + 1] * r.dims[axis + 1];
  for (int i = 0; i < count; ++i) {
    for (std::size_t axis = 0; axis < r.dims.size(); ++axis) {
      const int at = i / stride[axis] % r.dims[axis];
      if (at + 1 < r.dims[axis]) link(t, i, i + stride[axis], r.bandwidth, r.latency);
      else if (torus && r.dims[axis] > 2) link(t, i, i - at * stride[axis], r.bandwidth, r.latency);
    }
  }
  return Status::ok();
}

Status cluster(const TopologyRequest& r, Topology& t) {
  if (Status s = countIn(r.nodes, 1, "--nodes"); !s) return s;
  if (Status s = countIn(r.gpus, 1, "--gpus"); !s) return s;
  if (Status s = countIn(r.nodes * r.gpus, 1, "--nodes x --gpus"); !s) return s;
  if (Status s = positive(r.bandwidth, "--bandwidth"); !s) return s;
  if (Status s = positive(r.inter_bandwidth, "--inter-bandwidth"); !s) return s;
  addDevices(t, r.nodes * r.gpus);
  const int devices = r.nodes * r.gpus;
  for (int n = 0; n < r.nodes; ++n) t.switches.push_back("node" + std::to_string(n));
  t.switches.push_back("fabric");
  for (int n = 0; n < r.nodes; ++n) {
    for (int g = 0; g < r.gpus; ++g) link(t, n * r.gpus + g, devices + n, r.bandwidth, r.latency);
    link(t, devices + n, devices + r.nodes, r.inter_bandwidth, r.latency);
  }
  return Status::ok();
}

Status randomPairs(const TopologyRequest& r, bool blocks, Topology& t) {
  if (Status s = countIn(r.devices, 2, "--count"); !s) return s;
  if (Status s = positive(r.bandwidth, "--bandwidth"); !s) return s;
  if (Status s = positive(r.min_bandwidth, "--min-bandwidth"); !s) return s;
  if (!blocks && r.min_bandwidth > r.bandwidth) return invalidInput("topology: --min-bandwidth exceeds --bandwidth");
  if (blocks) {
    if (Status s = countIn(r.block, 1, "--block"); !s) return s;
  }
  addDevices(t, r.devices);
  std::mt19937_64 rng(r.seed);
  for (int a = 0; a < r.devices; ++a) {
    for (int b = a + 1; b < r.devices; ++b) {
      double bandwidth = 0;
      if (!blocks) bandwidth = draw(rng, r.min_bandwidth, r.bandwidth);
      else if (a / r.block == b / r.block) bandwidth = draw(rng, r.bandwidth / 2, r.bandwidth);
      else bandwidth = draw(rng, r.min_bandwidth, 2 * r.min_bandwidth);
      link(t, a, b, bandwidth, r.latency);
    }
  }
  return Status::ok();
}

}  // namespace

Expected<std::vector<int>> parseGridDims(const std::string& text) {
  std::vector<int> dims;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, 'x')) {
    if (part.empty() || part.size() > 4 || part.find_first_not_of("0123456789") != std::string::npos)
      return invalidInput("topology: --dims \"" + text + "\" is not sizes joined by x (4x4, 4x4x4)");
    dims.push_back(std::stoi(part));
    if (dims.back() < 1) return invalidInput("topology: --dims \"" + text + "\": every size must be at least 1");
  }
  if (dims.size() != 2 && dims.size() != 3)
    return invalidInput("topology: --dims \"" + text + "\" needs 2 or 3 sizes (4x4, 4x4x4)");
  return dims;
}

Expected<DeviceSpec> generateTopology(const TopologyRequest& request, const DeviceSpec& base) {
  if (!(request.latency >= 0) || !std::isfinite(request.latency)) return invalidInput("topology: --latency must be >= 0");
  Topology t;
  Status made = Status::ok();
  if (request.shape == "mesh" || request.shape == "torus") made = grid(request, request.shape == "torus", t);
  else if (request.shape == "cluster") made = cluster(request, t);
  else if (request.shape == "random-block" || request.shape == "uniform") made = randomPairs(request, request.shape == "random-block", t);
  else return invalidInput("topology: unknown shape \"" + request.shape + "\" (mesh, torus, cluster, random-block, uniform)");
  if (!made) return made;
  DeviceSpec spec = base;
  AcceleratorSpec kind = base.topology && !base.kinds.empty() ? base.kinds.front() : base.accelerators;
  if (!(kind.memory > 0) || !(base.link.bandwidth > 0))
    return invalidInput("topology: the base specification " + base.name + " has no accelerators to copy");
  t.kinds = {base.topology ? base.topology->kinds.front() : "accelerator"};
  // The host links first, as a specification file's "host" gives them (device_spec.h).
  std::vector<TopologyLink> links;
  for (int i = 0; i < static_cast<int>(t.devices.size()); ++i)
    links.push_back({i, t.hostNode(), base.link.bandwidth, base.link.latency});
  links.insert(links.end(), t.links.begin(), t.links.end());
  t.links = std::move(links);
  if (Status s = t.finish(); !s) return s;
  kind.count = static_cast<int>(t.devices.size());
  spec.accelerators = kind;
  spec.kinds = {kind};
  spec.topology = std::move(t);
  spec.name = request.shape + " of " + std::to_string(kind.count) + " devices (" + base.name + ")";
  return spec;
}

}  // namespace placer
