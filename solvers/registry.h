// The solvers the partition pass can run, by name, with what each supports (DESIGN.md, "Solvers").
//
// `partition=NAME`, `--algorithm NAME`, the help texts and the default pipelines all ask the
// registry; nothing else names a solver. Registration is one explicit function
// (registerBuiltinSolvers), not static self-registration, which silently vanishes from static
// libraries. A solver is a function from a problem (already reduced by the passes its entry names)
// and its options (solvers/solve_options.h) to a SolveResult: it never prints and never exits.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/budget.h"
#include "core/problem.h"
#include "core/solve_result.h"
#include "core/status.h"
#include "solvers/mip.h"
#include "solvers/solve_options.h"

namespace placer {

using SolveFn = std::function<SolveResult(const Problem&, const SolveOptions&)>;

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
  // Runs the exact DP itself and answers with its optimum whenever the DP finishes (dp, auto): a
  // certificate learns nothing from running the DP again.
  bool runs_exact_dp = false;
  // The reductions the solver needs before it, for the throughput goal (latency solvers see the
  // subdivided graph only: on CPUs colocated nodes still run one by one).
  std::string reductions;
  // What the solver needs of its input beyond the reductions' guarantees (null: nothing); a failure
  // is the caller's mistake (a hand-written pipeline without the reductions), reported as such.
  std::function<Status(const Problem&)> precondition;
  SolveFn solve;
  // Prices accelerators of several kinds apart (DeviceSet::kinds): each kind's times and memory.
  bool kinds = false;
  // May return splits over the accelerators' memory (Scotch balances compute and cut, not memory):
  // its answers are verified for everything else, and SolveResult::memory_violation says by how much
  // memory is exceeded (the passes check the figure).
  bool may_exceed_memory = false;
};

class SolverRegistry {
 public:
  void add(SolverInfo info);
  const SolverInfo* find(std::string_view name) const;
  const std::vector<SolverInfo>& all() const { return solvers_; }
  // "dp, dpl, ip, ip-noncontig or greedy", for messages.
  std::string names() const;
  // The same list restricted to the solvers `pred` accepts ("ip or ip-noncontig" for gpipe).
  std::string names(const std::function<bool(const SolverInfo&)>& pred) const;

 private:
  std::vector<SolverInfo> solvers_;  // in registration order
};

// DPL's split: SliceGraph's slicer on the DFS order, or on a mixed machine (which the slicer does not
// price) the DP over the DFS linearisation, which is the same split for one kind. Polynomial, and
// stopped only by the stop flag, never by the deadline: it is the answer of last resort.
SolveResult dplSplit(const Problem& problem, const SolveOptions& request);

// dp, dpl, ip, ip-noncontig and greedy.
void registerBuiltinSolvers(SolverRegistry& registry);

// The registry with the built-in solvers (built once; never changed afterwards).
const SolverRegistry& builtinSolvers();

// The solver called `name`, or Unsupported naming the known ones.
Expected<const SolverInfo*> findSolver(std::string_view name);

}  // namespace placer
