// The pass interface (DESIGN.md, "Passes"): what a pass gets, what it may read, and what it returns.
//
// A pass transforms a Problem in place and returns what it changed (PassResult, as ONNX Runtime's
// GraphTransformer::Apply reports `modified`): a pass that changes the vertex set returns the
// mapping from the vertices it received to the vertices it produced, and the pass manager
// (pass_manager.h) keeps the mappings, so a placement found on the transformed graph can be carried
// back to the graph the user gave (the expand pass). Settings (PassOptions) are read-only to passes;
// what the manager owns and passes read (the original problem, the mappings, the budget) is in
// PipelineState, beside the one slot passes write: the answer the partition pass leaves for certify
// and expand.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/budget.h"
#include "core/problem.h"
#include "core/solve_result.h"
#include "core/status.h"
#include "solvers/solve_options.h"

namespace placer {

class Pass;
struct SolverInfo;

// The settings a partitioning pass reads (solvers/solve_options.h); the name the facade's
// PlaceOptions::solver and the CLI use.
using SolverSettings = SolveOptions;

// new_of_old[v] = the vertex that vertex v of the pass's input became. Exact when every placement
// of the output is one of the input (through the mapping) and the optimum is kept in the space of the
// solvers whose reductions include the pass (every built-in pass); lossy when the optimum of the
// output can be worse than the input's (a coarsening that merges vertices an optimal split would
// keep apart): the placement is still valid, but a bound proven on the output is no bound of the
// input, so the certify pass gives no certificate after a lossy mapping.
struct VertexMapping {
  std::vector<Vertex> new_of_old;
  bool exact = true;
};

// What a pass changed.
struct PassResult {
  bool changed = false;                  // the problem is not what the pass received
  std::optional<VertexMapping> mapping;  // set by passes that change the vertex set
  std::string note;                      // one line for the log
  // Whether the forward graph may now have cycles: true after a contraction that can close them
  // (colocate, orphans), false after one that removes them (scc); unset leaves it as it was. The
  // pass manager's invariant check (verify_each) allows cycles while it is true.
  std::optional<bool> cycles_possible;
  // The pass carried the answer back to the original problem (expand): the mappings are spent.
  bool expanded = false;
  // The pass set the run's costs (a plugin's cost pass): the problem after it becomes the original
  // one, which the placement is expanded onto and evaluated on. Only before any vertex mapping.
  bool sets_costs = false;
};

// Settings of a pipeline run, read-only to every pass.
struct PassOptions {
  SolveOptions solver;
  bool verify_each = false;  // check the graph invariants after every pass
};

// What the pass manager owns and passes read, for one pipeline run, and the answer the partition
// pass leaves for the passes after it.
class PipelineState {
 public:
  // The problem as the user gave it (null before the manager's first pass).
  const Problem* original() const { return original_ ? &*original_ : nullptr; }
  // One mapping per graph-changing pass since the original, oldest first.
  const std::vector<VertexMapping>& mappings() const { return mappings_; }
  // A lossy mapping has been applied in this run (it stays set after expand).
  bool lossy() const { return lossy_; }
  // True after a contraction that can close cycles in the forward graph, until scc runs.
  bool cyclesPossible() const { return cycles_possible_; }
  // The whole solve's deadline and stop flag, shared by the partition and certify passes.
  const Budget& budget() const { return budget_; }
  // Starts the clock of `seconds` now unless the budget has a deadline already (the partition pass
  // calls it when it begins, so the reductions before it do not count unless the caller says so).
  void startClock(double seconds) {
    if (!budget_.hasDeadline()) budget_ = Budget(seconds, budget_.stopFlag());
  }
  // Whether a pass called `name` runs later in this pipeline (the partition pass keeps the
  // certificate's share of the time limit when certify follows it).
  bool followedBy(std::string_view name) const;

  // The partition pass's answer, on the graph it saw; certify adds its certificate, expand moves it
  // to the original graph.
  std::optional<SolveResult> solve;
  const SolverInfo* solver = nullptr;  // the solver that gave it (an entry of the registry)
  double solve_seconds = 0;            // how long the solver ran
  // Set by the partition pass when its split may give a device several pipeline stages.
  bool non_contiguous = false;

 private:
  friend class PassManager;
  friend Expected<PassResult> applyPass(Pass& pass, Problem& problem, const PassOptions& options,
                                        PipelineState& state);

  std::optional<Problem> original_;
  std::vector<VertexMapping> mappings_;
  bool lossy_ = false;
  bool cycles_possible_ = false;
  Budget budget_;
  std::vector<std::string> later_passes_;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;  // "scc", as used in --pipeline
  virtual Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) = 0;
};

// Runs one pass and records what it returned in `state` (its mapping appended, checked against the
// problem's vertex counts; the cycle flag updated; the mappings dropped after expand): what the pass
// manager does for every pass, for callers and tests that run a pass on their own. The first call
// on a fresh state records `problem` as the original and takes the budget from the options.
Expected<PassResult> applyPass(Pass& pass, Problem& problem, const PassOptions& options,
                               PipelineState& state);

}  // namespace placer
