#include "core/replicas.h"

#include <algorithm>
#include <string>

#include "core/shared_weights.h"

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

Status checkReplicable(const Problem& problem, const AllReduceCost* allreduce) {
  if (problem.objective.goal == Goal::Latency) {
    return unsupported(
        "replicas raise throughput only: a single sample's latency is the same on one replica "
        "as on many (use --replicas 1 with the latency objective)");
  }
  const OpGraph& g = problem.graph;
  const auto vertices = boost::make_iterator_range(boost::vertices(g));
  const auto backward =
      std::find_if(vertices.begin(), vertices.end(), [&](Vertex v) { return g[v].backward; });
  if (backward == vertices.end()) return Status::ok();
  const std::string what = "replicas of a training graph (" + describeNode(g, *backward) +
                           " is a backward node) all-reduce each stage's weight gradients every step";
  if (!allreduce) {
    return unsupported(what +
                       ", which needs the samples per step (--samples-per-step), the bandwidth between "
                       "replicas (--allreduce-bandwidth, or --topology) and the seconds of the costs' "
                       "time unit (--time-unit)");
  }
  if (!(allreduce->bandwidth > 0) || !(allreduce->samples_per_step > 0) || !(allreduce->seconds_per_unit > 0))
    return invalidInput(what + ": the bandwidth, samples per step and time unit must be positive");
  const bool weighted =
      std::any_of(vertices.begin(), vertices.end(), [&](Vertex v) { return g[v].weight_bytes > 0; });
  if (!weighted) {
    return unsupported(what +
                       ", but no node gives the bytes of its weights (a workload node's \"weightBytes\")");
  }
  return Status::ok();
}

Expected<Problem> replicatedProblem(const Problem& problem, int replicas, const AllReduceCost* allreduce) {
  if (replicas < 1)
    return invalidInput("the replica count must be at least 1 (got " + std::to_string(replicas) + ")");
  if (replicas == 1) return problem;
  if (Status s = checkReplicable(problem, allreduce); !s) return s;
  const int largest = largestKind(problem.devices);
  if (replicas > largest) {
    return invalidInput(std::to_string(replicas) + " replicas per stage need " + std::to_string(replicas) +
                        " accelerators of one kind; the machine has " + std::to_string(largest));
  }
  Problem out = problem;
  out.devices = replicatedDevices(problem.devices, replicas);
  const double r = replicas;
  // A training step's all-reduce per sample and weight byte, in the problem's time unit.
  double per_byte = 0;
  if (allreduce && isTraining(problem)) {
    per_byte =
        2 * (r - 1) / r / (allreduce->bandwidth * allreduce->samples_per_step) / allreduce->seconds_per_unit;
  }
  for (Vertex v : boost::make_iterator_range(boost::vertices(out.graph))) {
    OpNode& node = out.graph[v];
    const double allreduced = node.weight_bytes * per_byte;
    node.p_acc = node.p_acc / r + allreduced;  // +inf stays +inf
    for (double& t : node.p_kinds)
      t = t / r + allreduced;
  }
  for (Net& net : out.nets)
    net.cost /= r;
  return out;
}

std::vector<int> replicaCandidates(const DeviceSet& devices, bool every) {
  std::vector<int> out;
  std::vector<int> previous;  // the stage counts per kind of the last candidate kept
  for (int r = largestKind(devices); r >= 1; --r) {
    const DeviceSet d = replicatedDevices(devices, r);
    std::vector<int> stages;
    for (int k = 0; k < d.kindCount(); ++k)
      stages.push_back(d.kindSize(k));
    if (stages == previous && !every) continue;  // as many stages with more replicas: r is never better
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
