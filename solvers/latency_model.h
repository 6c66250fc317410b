// The latency integer program itself (Tarnawski et al. 2020, §4: Fig. 3, and Fig. 4 with q slots per
// accelerator): variables and constraint families, numbered as in the paper, with times in units of
// the big-M (the best start's latency), so that big-M coefficients are 1 and every time lies in
// [0, 1]. solvers/latency_ip.cc decides what may go where, chooses the start, solves and decodes.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "core/problem.h"
#include "solvers/ip_common.h"
#include "solvers/mip.h"

namespace placer {

struct LatencyModelInput {
  int q = 1;        // slots per accelerator
  int columns = 1;  // 1 + k q: column 0 is the CPU, slot j >= 1 is on accelerator (j - 1) / q
  std::function<bool(Vertex, int)> allowed;    // node v may go to column c (its colocation class too)
  std::function<bool(Vertex)> on_accelerator;  // node v may go to an accelerator at all
  std::map<int, std::vector<Vertex>> classes;  // colocation classes
  std::vector<Vertex> order;                   // the topological order symmetry breaking follows
  std::vector<double> head;                    // per node: a lower bound on when its output is ready
  double floor = 0;                            // the largest head: a lower bound on the latency
  double unit = 1;                             // the big-M: times are divided by it
  bool symmetry_breaking = true;
};

struct LatencyModel {
  mip::Model m;
  VarGrid x;                        // x[v][column]
  mip::Var total;                   // TotalLatency, in units of `unit`
  std::vector<mip::Var> slot_used;  // per slot, with symmetry breaking and q > 1 (else unset)
};

LatencyModel buildLatencyModel(const Problem& problem, const LatencyModelInput& in);

}  // namespace placer
