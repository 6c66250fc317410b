// What a solver returns: the outcome kept apart from the value (a solve can succeed and still find
// the instance infeasible), the placement, and statistics for reports and benchmarks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/problem.h"

namespace placer {

// TimeLimit: the budget's deadline passed; `placement` is the best split found by then (the exact DP
// answers with DPL's), or empty when none was; ResourceLimit: the instance is
// beyond what the solver accepts (more ideals than allowed) — a caller may fall back on another
// solver, as it must not on Error (the solver failed); Interrupted: the budget's stop flag was set
// (Ctrl-C), whatever was found is not to be used.
enum class SolveStatus { Optimal, Feasible, Infeasible, TimeLimit, ResourceLimit, Interrupted, Error };

const char* toString(SolveStatus status);

struct SolveStats {
  std::int64_t ideals = 0;       // ideals of the (possibly linearised) forward graph
  std::int64_t ideal_pairs = 0;  // (ideal, sub-ideal) pairs the DP evaluated
  std::int64_t pruned = 0;       // sub-ideal subtrees skipped by the upper bound
  std::int64_t mip_nodes = 0;    // branch-and-bound nodes of an integer program
  std::int64_t orders = 0;       // topological orders sliced (SliceGraph)
  std::string mip_solver;        // the MIP backend of an integer program that ran ("glpk", "cbc")
  double seconds = 0;
};

// What is proven about a placement (solvers/bounds/certificate.h): its value is `upper`, and no
// placement of `space` does better than `lower`.
struct Certificate {
  double upper = kInfinity;
  double lower = 0;
  std::string method;  // what proved `lower`: "dp", "ip", "simple", ...
  std::string space;   // "contiguous" (one block per device) or "any"
  // With space "contiguous": a bound over every placement, contiguous or not (a non-contiguous
  // split may beat the best contiguous one), and what proved it.
  double any_lower = 0;
  std::string any_method;
  // upper / lower: 1 when proven optimal, +inf when nothing is proven (lower 0).
  double ratio() const { return upper <= lower ? 1.0 : lower > 0 ? upper / lower : kInfinity; }
};

struct SolveResult {
  SolveStatus status = SolveStatus::Error;
  double value = kInfinity;  // objective of `placement`
  double bound = 0;          // proven lower bound on the optimum
  double gap = 0;            // (value - bound) / value: 0 when proven optimal
  Placement placement;       // on the problem the solver was given
  SolveStats stats;
  std::string message;      // why, for Infeasible and Error; how, for a search or an automatic choice
  std::string solver;       // the solver whose placement this is, when another chose it ("auto")
  Certificate certificate;  // set by the partition pass
  // Set only by a solver that may exceed memory (SolverInfo::may_exceed_memory, Scotch): the bytes
  // by which its accelerators exceed their memory, summed over them (memoryExcess; 0: it fits). Such
  // a split is not a valid placement when positive, and every output says so.
  std::optional<double> memory_violation;
};

// Progress of a long solve, for the CLI's stderr lines.
struct ProgressEvent {
  std::string phase;  // "ideals", "dp"
  std::int64_t done = 0;
  std::int64_t total = 0;  // 0 when unknown
  std::string detail;
};
using ProgressFn = std::function<void(const ProgressEvent&)>;

}  // namespace placer
