// The pass interface and the context passes share (DESIGN.md, "Passes").
//
// A pass transforms a Problem in place. A pass that changes the vertex set records the mapping from
// the vertices it received to the vertices it produced, so the pass manager can carry a placement
// found on the transformed graph back to the graph the user gave (the expand pass).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/budget.h"
#include "core/problem.h"
#include "core/solve_result.h"
#include "core/status.h"
#include "solvers/mip.h"

namespace placer {

// Settings a partitioning pass reads at run time (the algorithm itself is the pass's argument).
struct SolverSettings {
  std::int64_t max_ideals = 4'000'000;
  double time_limit = std::numeric_limits<double>::infinity();  // seconds, integer programs
  double mip_gap = 0;                                           // relative gap that stops an IP
  // The solver of every integer and linear program: the partition pass's, its certificate's and the
  // bound methods' (--mip-solver).
  mip::Backend mip_backend = mip::kDefaultBackend;
  int subgraphs_per_accelerator = 2;                            // q of the non-contiguous latency IP
  std::string orders;      // SliceGraph's order phases; empty: the default mix
  std::uint64_t seed = 1;  // SliceGraph's random numbers
  int threads = 0;         // 0: every core
  ProgressFn progress;
  // The whole solve's deadline and stop flag (set on SIGINT/SIGTERM by the CLI). time_limit covers
  // everything the partition pass does (starting splits, local search, building and solving the
  // program); a caller that wants the clock to start earlier sets the deadline here, otherwise the
  // partition pass starts time_limit's clock when it begins.
  Budget budget;
  // Whether the partition pass proves a certificate for its answer (solvers/bounds/certificate.h),
  // keeping a share of the time limit for it. Off for the nested solves that only give a start.
  bool certify = true;
};

struct PassContext {
  SolverSettings solver;
  bool verify_each = false;

  // Set by the pass manager before the first pass: the problem as the user gave it.
  std::optional<Problem> original;
  // One vertex map per graph-changing pass, oldest first: mappings[i][v] = vertex of v afterwards.
  std::vector<std::vector<Vertex>> mappings;
  // True after a contraction that can close cycles in the forward graph, until scc runs.
  bool cycles_possible = false;
  // The partition pass's answer, on the graph it saw; expand moves it to the original graph.
  std::optional<SolveResult> solve;
  // Set by the partition pass when its split may give a device several pipeline stages.
  bool non_contiguous = false;
  // A pass's one-line summary of what it did, collected into the log by the pass manager.
  std::string note;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual Status run(Problem& problem, PassContext& ctx) = 0;
};

}  // namespace placer
