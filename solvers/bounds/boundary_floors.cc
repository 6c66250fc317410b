#include "solvers/bounds/boundary_floors.h"

#include <algorithm>
#include <vector>

namespace placer {

namespace {

struct Floor {
  double total = 0;  // max_c (m - n(c))⁺ c
  double at = 0;     // the c that gives it
};

// `needs`: in(u) (or out(u)) for every node. n(c) is the number of values below c, so for the
// sorted values the best c among equal ones is the first.
Floor bestFloor(std::vector<double> needs, int sets) {
  std::sort(needs.begin(), needs.end());
  Floor best;
  for (std::size_t j = 0; j < needs.size() && static_cast<int>(j) < sets; ++j) {
    if (j > 0 && needs[j] == needs[j - 1]) continue;
    const double total = static_cast<double>(sets - static_cast<int>(j)) * needs[j];
    if (total > best.total) best = {total, needs[j]};
  }
  return best;
}

}  // namespace

BoundaryFloors boundaryFloors(const Problem& problem) {
  const OpGraph& g = problem.graph;
  const int k = problem.devices.accelerators;
  if (k == 0 || !findCycle(g, false).empty()) return {};
  const std::size_t n = boost::num_vertices(g);
  std::vector<double> in(n, 0.0), out(n, 0.0);
  for (const Net& net : problem.nets) {
    if (net.sinks.empty()) continue;
    out[net.source] += net.cost;
    for (Vertex sink : net.sinks)
      in[sink] += net.cost;
  }
  const Floor receive = bestFloor(std::move(in), k), send = bestFloor(std::move(out), k);
  return {receive.total + send.total, receive.at + send.at};
}

}  // namespace placer
