#include "core/replicas.h"

#include <algorithm>
#include <string>

namespace placer {

namespace {

// The device set with floor(count / R) accelerators of each kind.
DeviceSet replicatedDevices(const DeviceSet& devices, int replicas) {
  DeviceSet out = devices;
  if (!devices.mixed()) {
    out.accelerators = devices.accelerators / replicas;
    return out;
  }
  out.accelerators = 0;
  for (AcceleratorKind& kind : out.kinds) {
    kind.count /= replicas;
    out.accelerators += kind.count;
  }
  return out;
}

int largestKind(const DeviceSet& devices) {
  int largest = 0;
  for (int k = 0; k < devices.kindCount(); ++k)
    largest = std::max(largest, devices.kindSize(k));
  return largest;
}

}  // namespace

Status checkReplicable(const Problem& problem) {
  const OpGraph& g = problem.graph;
  for (Vertex v : boost::make_iterator_range(boost::vertices(g))) {
    if (g[v].backward) {
      return unsupported("replicas of a training graph (" + describeNode(g, v) +
                         " is a backward node) would all-reduce each stage's weight gradients every step, "
                         "which needs every operator's weight bytes and the costs' time unit; this graph "
                         "gives neither, so only --replicas 1 applies");
    }
  }
  if (problem.objective.goal == Goal::Latency) {
    return unsupported(
        "replicas raise throughput only: a single sample's latency is the same on one replica "
        "as on many (use --replicas 1 with the latency objective)");
  }
  return Status::ok();
}

Expected<Problem> replicatedProblem(const Problem& problem, int replicas) {
  if (replicas < 1)
    return invalidInput("the replica count must be at least 1 (got " + std::to_string(replicas) + ")");
  if (replicas == 1) return problem;
  if (Status s = checkReplicable(problem); !s) return s;
  const int largest = largestKind(problem.devices);
  if (replicas > largest) {
    return invalidInput(std::to_string(replicas) + " replicas per stage need " + std::to_string(replicas) +
                        " accelerators of one kind; the machine has " + std::to_string(largest));
  }
  Problem out = problem;
  out.devices = replicatedDevices(problem.devices, replicas);
  const double r = replicas;
  for (Vertex v : boost::make_iterator_range(boost::vertices(out.graph))) {
    OpNode& node = out.graph[v];
    node.p_acc /= r;  // +inf stays +inf
    for (double& t : node.p_kinds)
      t /= r;
  }
  for (Net& net : out.nets)
    net.cost /= r;
  return out;
}

std::vector<int> replicaCandidates(const DeviceSet& devices) {
  std::vector<int> out;
  std::vector<int> previous;  // the stage counts per kind of the last candidate kept
  for (int r = largestKind(devices); r >= 1; --r) {
    const DeviceSet d = replicatedDevices(devices, r);
    std::vector<int> stages;
    for (int k = 0; k < d.kindCount(); ++k)
      stages.push_back(d.kindSize(k));
    if (stages == previous) continue;  // as many stages with more replicas: r is never better
    previous = stages;
    out.push_back(r);
  }
  std::reverse(out.begin(), out.end());
  if (out.empty() || out.front() != 1) out.insert(out.begin(), 1);
  return out;
}

std::vector<int> replicaAccelerators(const DeviceSet& devices, int replicas, int accelerator) {
  const DeviceSet replicated = replicatedDevices(devices, replicas);
  const int kind = replicated.kindOf(accelerator);
  const int within = accelerator - replicated.firstOfKind(kind);
  const int first = devices.firstOfKind(kind) + within * replicas;
  std::vector<int> out;
  for (int r = 0; r < replicas; ++r)
    out.push_back(first + r);
  return out;
}

}  // namespace placer
