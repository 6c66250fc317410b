// Building blocks shared by the integer programs (Tarnawski et al. 2020, Figs. 3, 4 and 6).
//
// The programs assign every node to one "column": a device (max-load IP) or a subgraph slot (latency
// IP). x[v][c] is the binary for node v in column c; a node that may not use a column (unsupported on
// accelerators, too large) has no variable there (index -1), and expressions treat it as 0.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/limits.h"
#include "solvers/mip.h"

namespace placer {

using VarGrid = std::vector<std::vector<mip::Var>>;

// The seconds an integer program may take from now: its limits' time limit, or what is left of the
// budget if that ends first.
double secondsAllowed(const Limits& limits);

// The branch-and-cut's reports, objective values multiplied by `unit`, passed on to `detailed` as
// they are and to `progress` as a progress line ("ip": nodes, incumbent, bound, gap). Null when both
// are.
std::function<void(const mip::Progress&)> forwardProgress(
    const ProgressFn& progress, const std::function<void(const mip::Progress&)>& detailed, double unit = 1);

// x[v][c] for every node and column c in [0, columns), where allowed(v, c); plus the assignment
// rows sum_c x[v][c] = 1. Columns are devices by default; pass `columns` for slot layouts. With
// share_colocated, nodes of one colocation class share their variables, which states the colocation
// constraint without a row when each column belongs to one device and colocated nodes must be in
// the same column; a class may use a column only if all of its members may. Layouts where colocated
// nodes may sit in different columns of one device (q subgraphs per accelerator) pass false and add
// their own rows.
VarGrid addAssignmentVariables(mip::Model& m, const Problem& problem,
                               const std::function<bool(Vertex, int)>& allowed, int columns = -1,
                               bool share_colocated = true);

// x[v][c] as an expression (0 when the variable does not exist).
mip::LinExpr term(const VarGrid& x, Vertex v, int c);

// A fixed topological order of all nodes (all edges), smallest index first among ready nodes; index
// order if the graph has a cycle.
std::vector<Vertex> nodeOrder(const OpGraph& g);

// Symmetry breaking between identical columns [first, last): with nodes in `order`, column c+1 may
// hold a node only if column c holds an earlier node. Accelerators and CPUs must be passed as
// separate ranges.
void addSymmetryRows(mip::Model& m, const Problem& problem, const VarGrid& x,
                     const std::vector<Vertex>& order, int first, int last);

// Which edges a contiguity system covers: both ends forward, both ends backward, or either.
enum class EdgeSide { Forward, Backward, Both };

// Contiguity (11)-(13) of every device, a device being a group of columns (X[v][g] = sum of x over
// the group): z[v][g] >= X[v][g], and for every covered edge (u, v) (never one between a forward and
// a backward node), z[v][g] <= z[u][g] and z[v][g] <= X[v][g] - X[u][g] + 1.
void addContiguityRows(mip::Model& m, const Problem& problem, const VarGrid& x,
                       const std::vector<std::vector<int>>& groups, EdgeSide side);

// CommIn / CommOut per net and column in [first, last) (index -1 where the net cannot cross):
// in[n][c] >= x[s][c] - x[src][c] and out[n][c] >= x[src][c] - x[s][c] for every sink s.
struct NetCommVars {
  VarGrid in, out;  // [net][column]
};
NetCommVars addNetCommVars(mip::Model& m, const Problem& problem, const VarGrid& x, int first, int last);

// Relabels identical devices of a split in order of first use along `order` (accelerators of each
// kind among themselves, CPUs among themselves), so a start satisfies the symmetry rows.
std::vector<int> canonicalLabels(const Problem& problem, const std::vector<int>& device_of,
                                 const std::vector<Vertex>& order);

// A start vector for mip::Options::start: x[v][column_of[v]] = 1, every other integer variable 0.
std::vector<double> startValues(const mip::Model& m, const VarGrid& x, const std::vector<int>& column_of);

// The column of each node in a MIP solution (the x set to 1).
std::vector<int> decodeColumns(const VarGrid& x, const std::vector<double>& values);

// Carries a MIP outcome into a SolveResult: status, bound, gap and node count, with `value` the
// objective recomputed by the caller's evaluator. Optimal <- optimal, Feasible <- stopped with an
// incumbent, TimeLimit <- stopped without one, Infeasible, Error.
void applyMipOutcome(SolveResult& result, const mip::Result& r, double value);

// Max-load IP result from the decoded device of every node (empty when the MIP has no solution):
// recomputes the objective with `evaluate` and orders the split into pipeline stages.
SolveResult ipResult(const Problem& problem, const mip::Result& r, const std::vector<int>& device_of,
                     std::chrono::steady_clock::time_point started,
                     const std::function<double(const std::vector<int>&)>& evaluate);

}  // namespace placer
