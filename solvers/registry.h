// The solvers the partition pass can run, by name, with what each supports (DESIGN.md, "Solvers").
//
// `partition=NAME`, `--algorithm NAME`, the help texts and the default pipelines all ask the
// registry; nothing else names a solver. Registration is one explicit function
// (registerBuiltinSolvers), not static self-registration, which silently vanishes from static
// libraries. A solver is a function from a problem (already reduced by the passes its entry names)
// and a request to a SolveResult: it never prints and never exits.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/budget.h"
#include "core/problem.h"
#include "core/solve_result.h"
#include "core/status.h"
#include "solvers/mip.h"

namespace placer {

// What a solve may use beyond the problem: limits, progress, and starting splits from the caller.
struct SolveRequest {
  std::int64_t max_ideals = 4'000'000;                          // the exact DP refuses larger lattices
  double time_limit = std::numeric_limits<double>::infinity();  // seconds, as the user gave it
  double mip_gap = 0;                                           // relative gap that stops an IP
  mip::Backend mip_backend = mip::kDefaultBackend;              // what solves an IP
  int subgraphs_per_accelerator = 2;                            // q of the non-contiguous latency IP
  std::string orders;      // SliceGraph's order phases (solvers/slicegraph/search.h); empty: the default
  std::uint64_t seed = 1;  // SliceGraph's random numbers
  int threads = 0;         // 0: every core
  Budget budget;           // the deadline (time_limit, started when the solve began) and the stop flag
  ProgressFn progress;
  // The max-load DP's split (DPL's when `linear`) of a problem on the same vertices, within a budget.
  // Starting splits need the DP's own reductions, which an integer program must not see; the caller
  // (passes/partition.cc) runs them. Null: no such start.
  std::function<Expected<SolveResult>(const Problem&, bool linear, const Budget&)> dp_split;
};

using SolveFn = std::function<SolveResult(const Problem&, const SolveRequest&)>;

struct SolverInfo {
  std::string name;         // as in --algorithm and partition=NAME
  std::string summary;      // one line for help texts
  bool throughput = false;  // minimises the max-load
  bool latency = false;     // minimises the single-sample latency
  // Throughput splits it returns give every device one contiguous block (false: a device may run
  // several pipeline stages).
  bool contiguous = true;
  // Proves optimality in its space when it finishes in time (a bound and a gap otherwise).
  bool exact = false;
  // Minimises max FW + max BW of a training graph (the GPipe objective, App. A) when asked.
  bool gpipe = false;
  // The reductions the solver needs before it, for the throughput goal (latency solvers see the
  // subdivided graph only: on CPUs colocated nodes still run one by one).
  std::string reductions;
  // What the solver needs of its input beyond the reductions' guarantees (null: nothing); a failure
  // is the caller's mistake (a hand-written pipeline without the reductions), reported as such.
  std::function<Status(const Problem&)> precondition;
  SolveFn solve;
};

class SolverRegistry {
 public:
  void add(SolverInfo info);
  const SolverInfo* find(std::string_view name) const;
  const std::vector<SolverInfo>& all() const { return solvers_; }
  // "dp, dpl, ip, ip-noncontig or greedy", for messages.
  std::string names() const;

 private:
  std::vector<SolverInfo> solvers_;  // in registration order
};

// dp, dpl, ip, ip-noncontig and greedy.
void registerBuiltinSolvers(SolverRegistry& registry);

// The registry with the built-in solvers (built once; never changed afterwards).
const SolverRegistry& builtinSolvers();

// The solver called `name`, or Unsupported naming the known ones.
Expected<const SolverInfo*> findSolver(std::string_view name);

}  // namespace placer
