// Where the latency program (solvers/latency_ip.h) may put each node, and what each node costs at
// the cheapest and dearest of those places: the program's columns, its heads and its big-M come
// from them.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.h"

namespace placer {

// Where each node may go in the latency program's columns (0 the CPU, slot j >= 1 on accelerator
// (j - 1) / q): the CPU column if there are CPUs and it runs there, a slot if it is supported on
// accelerators and fits one (on a machine of several kinds, that accelerator's memory). A
// colocation class goes where all of its members may. The functions read `problem`, which must
// outlive them.
struct Places {
  std::function<bool(Vertex)> on_accelerator;  // the node may go to an accelerator at all
  std::function<bool(Vertex, int)> allowed;    // the node (and its class) may go to column c
  std::map<int, std::vector<Vertex>> classes;  // colocation classes
  std::string nowhere;                         // why a node may go nowhere; "" when all may go somewhere
};

// `q`: slots per accelerator.
Places placesOf(const Problem& problem, int q);

// Each node's cheapest and slowest time over the columns it may take (column 0 and the first slot
// of each kind's first accelerator stand for all of them); `nowhere`: a node that may take none.
struct NodeTimes {
  std::vector<double> cheapest, slowest;
  std::optional<Vertex> nowhere;
};

NodeTimes nodeTimes(const Problem& problem, int q, const Places& places);

// A number as the latency program's messages print it: ten significant digits.
std::string tenDigits(double value);

}  // namespace placer
