#include "core/shared_weights.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace placer {

Expected<SharedWeightMode> parseSharedWeightMode(std::string_view name) {
  if (name == "auto") return SharedWeightMode::Auto;
  if (name == "replicate") return SharedWeightMode::Replicate;
  if (name == "colocate") return SharedWeightMode::Colocate;
  return invalidInput("unknown shared-weight mode '" + std::string(name) +
                      "' (expected replicate, colocate or auto)");
}

const char* toString(SharedWeightMode mode) {
  switch (mode) {
    case SharedWeightMode::Auto:
      return "auto";
    case SharedWeightMode::Replicate:
      return "replicate";
    case SharedWeightMode::Colocate:
      return "colocate";
  }
  return "?";
}

bool isTraining(const Problem& problem) {
  const OpGraph& g = problem.graph;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].backward) return true;
  }
  return false;
}

SharedWeightMode resolveSharedWeightMode(const Problem& problem, SharedWeightMode mode) {
  if (mode != SharedWeightMode::Auto) return mode;
  return isTraining(problem) ? SharedWeightMode::Colocate : SharedWeightMode::Replicate;
}

namespace {

int findRoot(std::vector<int>& parent, int x) {
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

void colocateGroups(Problem& problem, const std::vector<std::vector<Vertex>>& groups) {
  OpGraph& g = problem.graph;
  const int n = static_cast<int>(boost::num_vertices(g));
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto unite = [&](int a, int b) { parent[findRoot(parent, a)] = findRoot(parent, b); };
  std::map<int, int> first_of_class;
  for (int v = 0; v < n; ++v) {
    if (!g[v].colocation) continue;
    auto [it, inserted] = first_of_class.try_emplace(*g[v].colocation, v);
    if (!inserted) unite(v, it->second);
  }
  for (const auto& group : groups) {
    for (Vertex v : group)
      unite(static_cast<int>(v), static_cast<int>(group.front()));
  }
  std::vector<int> size(n, 0);
  for (int v = 0; v < n; ++v)
    ++size[findRoot(parent, v)];
  // Class ids renumbered by the smallest vertex of each set, so the result does not depend on the
  // ids the input used.
  std::map<int, int> class_of_root;
  for (int v = 0; v < n; ++v) {
    const int root = findRoot(parent, v);
    if (size[root] < 2 && !g[v].colocation) continue;
    auto [it, inserted] = class_of_root.try_emplace(root, static_cast<int>(class_of_root.size()));
    g[v].colocation = it->second;
  }
}

Status applySharedWeightMode(Problem& problem, SharedWeightMode mode, double colocate_min_bytes) {
  const bool training = isTraining(problem);
  if (mode == SharedWeightMode::Replicate && training && !problem.weights.empty()) {
    return unsupported(
        "shared weights cannot be replicated in a training graph: each copy would get its own "
        "gradient, and combining them is communication the cost model does not have; use colocate "
        "(the default for training)");
  }
  if (resolveSharedWeightMode(problem, mode) != SharedWeightMode::Colocate) return Status::ok();
  // The readers of each weight go together: vertices already sharing a class stay together, so
  // merging two readers' classes also merges their backward partners.
  std::vector<std::vector<Vertex>> readers;
  for (const SharedWeight& w : problem.weights) {
    if (w.bytes >= colocate_min_bytes && !w.readers.empty()) readers.push_back(w.readers);
  }
  if (!readers.empty()) colocateGroups(problem, readers);
  return Status::ok();
}

std::vector<ReplicatedWeight> replicatedWeights(const Problem& problem, const std::vector<int>& device_of) {
  std::vector<ReplicatedWeight> out;
  for (const SharedWeight& w : problem.weights) {
    std::vector<int> devices;
    for (Vertex r : w.readers)
      devices.push_back(device_of[r]);
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    if (devices.size() < 2) continue;
    const double added = w.bytes * static_cast<double>(devices.size() - 1);
    out.push_back({w.name, w.bytes, std::move(devices), added});
  }
  return out;
}

}  // namespace placer
